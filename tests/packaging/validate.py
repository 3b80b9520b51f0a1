#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The packaging checks, one TAP test per mode:

  validate.py desktop     SOURCE BUILD   desktop-file-validate on the merged desktop file
  validate.py metainfo    SOURCE BUILD   appstreamcli validate --no-net on the merged metainfo
  validate.py icons       SOURCE BUILD   the app icon and its symbolic variant
  validate.py schemas     SOURCE BUILD   glib-compile-schemas --strict --dry-run on data/*.gschema.xml
  validate.py translation SOURCE BUILD   po/ru.po complete for the strings in the sources today
  validate.py cli-ru      SOURCE BUILD   assay-cli speaks Russian with LANGUAGE=ru
  validate.py install     SOURCE BUILD   meson install puts every file where it belongs
"""
import os
import re
import struct
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import Tap  # noqa: E402

APP_ID = 'org.assay.Assay'
mode, source, build = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
tap = Tap()


def run(argv, env=None, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, env=env, **kwargs)


def desktop_keys(path):
    keys = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if '=' in line and not line.startswith('#'):
                key, _, value = line.rstrip('\n').partition('=')
                keys[key] = value
    return keys


def check_desktop(path):
    result = run(['desktop-file-validate', path])
    # Hints are advice (several main categories is what we mean); errors and warnings fail.
    problems = [l for l in (result.stdout + result.stderr).splitlines()
                if ': error:' in l or ': warning:' in l]
    tap.check(f'desktop-file-validate {os.path.basename(path)}', result.returncode == 0 and not problems,
              result.stdout, result.stderr)
    keys = desktop_keys(path)
    tap.check('the desktop file starts the app through D-Bus and names its icon',
              keys.get('DBusActivatable') == 'true' and keys.get('Icon') == APP_ID
              and keys.get('Exec', '').split()[0] == 'assay', keys)
    tap.check('the desktop file opens CSV, TSV and Excel files',
              {'text/csv', 'text/tab-separated-values',
               'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'}
              <= set(filter(None, keys.get('MimeType', '').split(';'))), keys.get('MimeType'))
    return keys


def check_metainfo(path):
    result = run(['appstreamcli', 'validate', '--no-net', '--explain', path])
    tap.check(f'appstreamcli validate --no-net {os.path.basename(path)}', result.returncode == 0,
              result.stdout, result.stderr)
    root = ET.parse(path).getroot()
    tap.check('the metainfo id is the application id and launches its desktop file',
              root.findtext('id') == APP_ID
              and root.findtext('launchable') == APP_ID + '.desktop')
    project = open(os.path.join(source, 'meson.build'), encoding='utf-8').read()
    version = re.search(r"version:\s*'([^']+)'", project).group(1)
    releases = [r.get('version') for r in root.iter('release')]
    tap.check(f'the newest release in the metainfo is the project version ({version})',
              releases and releases[0] == version, releases)
    tap.check('the metainfo has screenshots, a content rating and display and control relations',
              len(list(root.iter('screenshot'))) >= 1 and root.find('content_rating') is not None
              and root.find('requires/display_length') is not None
              and {c.text for c in root.iter('control')} >= {'keyboard', 'pointing'})
    # Every screenshot is in the repository (taken by the GUI tests), a PNG of the declared size.
    shots_ok, shots_detail = True, []
    for image in root.iter('image'):
        url = image.text or ''
        local = os.path.join(source, 'data', 'screenshots', os.path.basename(url))
        if not os.path.isfile(local):
            shots_ok = False
            shots_detail.append('missing: ' + local)
            continue
        with open(local, 'rb') as f:
            head = f.read(24)
        size = struct.unpack('>II', head[16:24]) if head[:8] == b'\x89PNG\r\n\x1a\n' else None
        if size != (int(image.get('width', 0)), int(image.get('height', 0))):
            shots_ok = False
            shots_detail.append('%s is %s, the metainfo says %sx%s' % (local, size, image.get('width'), image.get('height')))
    tap.check('every screenshot is in data/screenshots, a PNG of the declared size',
              shots_ok and len(list(root.iter('image'))) >= 3, '\n'.join(shots_detail))
    translated = [e for e in root.iter() if e.get('{http://www.w3.org/XML/1998/namespace}lang') == 'ru']
    tap.check('the metainfo carries the Russian translation', len(translated) >= 10, len(translated))


if mode == 'desktop':
    check_desktop(os.path.join(build, 'data', APP_ID + '.desktop'))
    keys = desktop_keys(os.path.join(build, 'data', APP_ID + '.desktop'))
    tap.check('the desktop file is translated into Russian',
              keys.get('GenericName[ru]') and keys.get('Comment[ru]') and keys.get('Keywords[ru]'), keys)
    service = open(os.path.join(build, 'data', APP_ID + '.service'), encoding='utf-8').read()
    tap.check('the D-Bus service file runs the installed assay as a GApplication service',
              re.search(r'^Name=' + re.escape(APP_ID) + '$', service, re.M)
              and re.search(r'^Exec=/\S*/assay --gapplication-service$', service, re.M), service)

elif mode == 'metainfo':
    check_metainfo(os.path.join(build, 'data', APP_ID + '.metainfo.xml'))

elif mode == 'icons':
    icons = os.path.join(source, 'data', 'icons', 'hicolor')
    svg = '{http://www.w3.org/2000/svg}'
    app = ET.parse(os.path.join(icons, 'scalable', 'apps', APP_ID + '.svg')).getroot()
    tap.check('the app icon is an SVG drawn on 128×128', app.tag == svg + 'svg'
              and app.get('viewBox') == '0 0 128 128', app.attrib)
    symbolic_path = os.path.join(icons, 'symbolic', 'apps', APP_ID + '-symbolic.svg')
    symbolic = ET.parse(symbolic_path).getroot()
    tap.check('the symbolic icon is an SVG drawn on 16×16', symbolic.tag == svg + 'svg'
              and symbolic.get('viewBox') == '0 0 16 16', symbolic.attrib)
    text = open(symbolic_path, encoding='utf-8').read()
    colours = set(re.findall(r'#[0-9a-fA-F]{3,6}\b', text))
    tap.check('the symbolic icon is monochrome, without gradients or images',
              len(colours) <= 1 and 'Gradient' not in text and '<image' not in text, colours)
    pixbuf = shutil.which('gdk-pixbuf-thumbnailer')
    if tap.check('gdk-pixbuf-thumbnailer is installed (it renders the icons)', pixbuf):
        with tempfile.TemporaryDirectory() as tmp:
            for name, path in (('app icon', os.path.join(icons, 'scalable', 'apps', APP_ID + '.svg')),
                               ('symbolic icon', symbolic_path)):
                out = os.path.join(tmp, 'icon.png')
                result = run([pixbuf, '-s', '64', path, out])
                tap.check(f'the {name} renders', result.returncode == 0 and os.path.getsize(out) > 200,
                          result.stderr)

elif mode == 'schemas':
    compiler = shutil.which('glib-compile-schemas')
    tap.check('glib-compile-schemas is installed', compiler)
    schemas = sorted(f for f in os.listdir(os.path.join(source, 'data')) if f.endswith('.gschema.xml'))
    with tempfile.TemporaryDirectory() as tmp:
        # The validator itself: it must reject a broken schema, or passing means nothing.
        bad = os.path.join(tmp, 'bad')
        os.mkdir(bad)
        with open(os.path.join(bad, 'org.assay.Broken.gschema.xml'), 'w') as f:
            f.write('<schemalist><schema id="org.assay.Broken" path="/org/assay/Broken/">'
                    '<key name="Bad_Name" type="i"><default>"text"</default></key>'
                    '</schema></schemalist>')
        result = run([compiler, '--strict', '--dry-run', bad])
        tap.check('glib-compile-schemas --strict --dry-run rejects a broken schema', result.returncode != 0)
        for name in schemas:
            one = os.path.join(tmp, name + '.d')
            os.mkdir(one)
            shutil.copy(os.path.join(source, 'data', name), one)
            result = run([compiler, '--strict', '--dry-run', one])
            tap.check(f'{name} compiles with --strict', result.returncode == 0, result.stderr)
            ids = re.findall(r'<schema\b[^>]*\bid="([^"]+)"',
                             open(os.path.join(source, 'data', name), encoding='utf-8').read())
            tap.check(f'{name}: every schema id is under {APP_ID}',
                      ids and all(i == APP_ID or i.startswith(APP_ID + '.') for i in ids), ids)
        if schemas:
            result = run([compiler, '--strict', '--dry-run', os.path.join(source, 'data')])
            tap.check('data/ compiles as a whole with --strict', result.returncode == 0, result.stderr)
    tap.note(f'{len(schemas)} schema file(s) in data/: {", ".join(schemas) or "none yet (the window adds it)"}')

elif mode == 'translation':
    po = os.path.join(source, 'po', 'ru.po')
    result = run(['msgfmt', '--check', '--statistics', '-o', os.devnull, po], env=dict(os.environ, LC_ALL='C'))
    stats = result.stderr.strip()
    tap.check('msgfmt --check po/ru.po', result.returncode == 0, stats)
    tap.check('po/ru.po has no fuzzy and no untranslated messages',
              re.fullmatch(r'\d+ translated messages?\.', stats), stats)
    # msgmerge wraps long header lines: join the continued strings before looking.
    header = re.sub(r'"\n"', '', open(po, encoding='utf-8').read())
    tap.check('po/ru.po uses the three Russian plural forms', 'Plural-Forms: nplurals=3; plural=(n%10==1 && '
              'n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);' in header)
    with tempfile.TemporaryDirectory() as tmp:
        # The catalogue as the sources are today, with the keywords of meson's glib preset.
        pot = os.path.join(tmp, 'assay.pot')
        merged = os.path.join(tmp, 'ru.po')
        result = run(['xgettext', '--package-name=assay', '--from-code=UTF-8', '--add-comments',
                      '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
                      '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
                      '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
                      '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
                      '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
                      '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
                      '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_log:3:c-format',
                      '--flag=g_print:1:c-format', '--flag=g_printerr:1:c-format',
                      '--flag=g_printf:1:c-format', '--flag=g_fprintf:2:c-format',
                      '--flag=g_sprintf:2:c-format', '--flag=g_snprintf:3:c-format',
                      '-D', source, '-f', os.path.join(source, 'po', 'POTFILES.in'), '-o', pot])
        tap.check('xgettext extracts the strings listed in po/POTFILES.in', result.returncode == 0
                  and os.path.exists(pot), result.stderr)
        if os.path.exists(pot):
            result = run(['msgmerge', '--quiet', '--no-fuzzy-matching', '-o', merged, po, pot])
            stats = run(['msgfmt', '--statistics', '-o', os.devnull, merged],
                        env=dict(os.environ, LC_ALL='C')).stderr.strip()
            untranslated = run(['msgattrib', '--untranslated', '--no-obsolete', merged]).stdout
            tap.check('every string in the sources today has a Russian translation',
                      result.returncode == 0 and re.fullmatch(r'\d+ translated messages?\.', stats),
                      stats, re.findall(r'^msgid .*$', untranslated, re.M)[1:20])

elif mode == 'cli-ru':
    cli = os.path.join(build, 'src', 'cli', 'assay-cli')
    localedir = os.path.join(build, 'po')
    tap.check('the build compiled the Russian catalogue',
              os.path.exists(os.path.join(localedir, 'ru', 'LC_MESSAGES', 'assay.mo')))
    russian = dict(os.environ, LANGUAGE='ru', LC_ALL='C.UTF-8', ASSAY_LOCALEDIR=localedir)
    english = dict(os.environ, LC_ALL='C.UTF-8', ASSAY_LOCALEDIR=localedir)
    english.pop('LANGUAGE', None)

    out = run([cli, '--help'], env=russian).stdout
    tap.check('assay-cli --help is in Russian', 'Использование: assay-cli КОМАНДА' in out
              and 'песочниц' in out and 'Usage:' not in out, out)
    out = run([cli, '--help'], env=english).stdout
    tap.check('assay-cli --help stays English without LANGUAGE', out.startswith('Usage: assay-cli COMMAND'), out)
    out = run([cli, 'ask', '--help'], env=russian).stdout
    tap.check('assay-cli ask --help: option descriptions and exit codes in Russian',
              'Выполнять все ячейки без подтверждения' in out and 'Код завершения:' in out, out)
    result = run([cli, 'sandbox', 'status'], env=russian)
    tap.check('assay-cli sandbox status is in Russian', result.returncode == 0
              and 'Образ песочницы' in result.stdout and 'Сессии будут использовать:' in result.stdout,
              result.stdout, result.stderr)
    result = run([cli, 'exec', '--timeout', '-1', '/dev/null'], env=russian)
    tap.check('an error of assay-cli exec is in Russian', result.returncode == 2
              and 'должны быть положительными' in result.stderr, result.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        result = run([cli, 'session', 'show', tmp], env=russian)
        tap.check('an error from the core (the session) is in Russian', result.returncode == 1
                  and 'Не удаётся прочитать сессию' in result.stderr, result.stderr)
    # The plural forms, through gettext's own ngettext(1) on the compiled catalogue.
    singular = 'Restoring the session: running its %u successful cell again…\n'
    plural = 'Restoring the session: running its %u successful cells again…\n'
    expect = {1: 'ячейка', 2: 'ячейки', 4: 'ячейки', 5: 'ячеек', 11: 'ячеек', 21: 'ячейка', 22: 'ячейки', 25: 'ячеек'}
    got = {}
    for n in expect:
        got[n] = run(['ngettext', '-d', 'assay', singular, plural, str(n)],
                     env=dict(russian, TEXTDOMAINDIR=localedir)).stdout
    tap.check('Russian plural forms: 1, 21 ячейка; 2, 4, 22 ячейки; 5, 11, 25 ячеек',
              all(expect[n] in got[n] for n in expect), got)

elif mode == 'install':
    with tempfile.TemporaryDirectory() as destdir:
        result = run(['meson', 'install', '-C', build, '--no-rebuild', '--quiet', '--destdir', destdir])
        tap.check('meson install --destdir succeeds', result.returncode == 0, result.stdout, result.stderr)
        prefix = run(['meson', 'introspect', '--buildoptions', build]).stdout
        prefix = re.search(r'"name": "prefix", "value": "([^"]+)"', prefix).group(1)
        root = destdir + prefix
        share = os.path.join(root, 'share')
        expected = [
            os.path.join(root, 'bin', 'assay-cli'),
            os.path.join(share, 'applications', APP_ID + '.desktop'),
            os.path.join(share, 'metainfo', APP_ID + '.metainfo.xml'),
            os.path.join(share, 'dbus-1', 'services', APP_ID + '.service'),
            os.path.join(share, 'icons', 'hicolor', 'scalable', 'apps', APP_ID + '.svg'),
            os.path.join(share, 'icons', 'hicolor', 'symbolic', 'apps', APP_ID + '-symbolic.svg'),
            os.path.join(share, 'locale', 'ru', 'LC_MESSAGES', 'assay.mo'),
        ]
        missing = [p[len(destdir):] for p in expected if not os.path.isfile(p)]
        tap.check('installed: assay-cli, desktop file, metainfo, D-Bus service, both icons, Russian catalogue',
                  not missing, *missing)
        service = os.path.join(share, 'dbus-1', 'services', APP_ID + '.service')
        if os.path.isfile(service):
            tap.check('the installed D-Bus service runs <prefix>/bin/assay',
                      f'Exec={prefix}/bin/assay --gapplication-service' in open(service).read())
        if os.path.isfile(expected[1]):
            check_desktop(expected[1])
        if os.path.isfile(expected[2]):
            check_metainfo(expected[2])
        man = os.path.join(share, 'man', 'man1', 'assay-cli.1')
        if tap.check('installed: the assay-cli(1) man page', os.path.isfile(man)):
            result = run(['groff', '-man', '-Tutf8', '-ww', man])
            page = re.sub(r'.\x08', '', result.stdout)   # the bold and underlining taken out
            commands = ('ask', 'demo', 'exec', 'export', 'rerun', 'session', 'inspect')
            tap.check('the man page renders without a warning and has every command, its options '
                      'and the export formats', result.returncode == 0 and not result.stderr
                      and all(re.search(r'^   ' + c + r'$', page, re.M) for c in commands)
                      and '--db-max-rows' in page and 'pdf, html, ipynb, xlsx, bundle' in page,
                      result.stderr, page[:3000])
        out = run([expected[0], '--help'], env=dict(os.environ, LANGUAGE='ru', LC_ALL='C.UTF-8',
                                                      ASSAY_LOCALEDIR=os.path.join(share, 'locale'))).stdout
        tap.check('the installed assay-cli finds the installed Russian catalogue',
                  'Использование' in out, out)
        has_app = os.path.exists(os.path.join(source, 'src', 'app', 'meson.build'))
        if has_app:
            tap.check('installed: the app, assay', os.path.isfile(os.path.join(root, 'bin', 'assay')))
        else:
            tap.note('src/app has no meson.build yet: the app binary is not checked')
else:
    sys.exit(f'unknown mode {mode}')

tap.finish()
