#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The structure of flatpak/org.assay.Assay.json. It cannot be built on the development machine
(no Flatpak runtime can be fetched there), so this test checks what can be checked without
flatpak-builder: the ids, the runtime, the command, the exact permissions, that every source is
pinned, and that Assay is built last from this tree. TAP.

Usage: test-flatpak-manifest.py SOURCE_ROOT [BUILD_ROOT]"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'packaging'))
from tap import Tap  # noqa: E402

APP_ID = 'org.assay.Assay'
source = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
build = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
manifest_path = os.path.join(source, 'flatpak', APP_ID + '.json')
tap = Tap()

# What Assay needs, and nothing more (flatpak/README.md says why each is there).
ALLOWED_FINISH_ARGS = {
    '--share=ipc',
    '--socket=wayland',
    '--socket=fallback-x11',
    '--device=dri',
    '--share=network',                        # hosted models; Ollama on localhost too
    '--talk-name=org.freedesktop.secrets',    # API keys in the keyring
    '--filesystem=/run/docker.sock',          # Docker (/var/run is a link to /run)
    '--filesystem=xdg-run/podman:ro',         # rootless Podman's socket
}
FORBIDDEN = re.compile(r'^--(filesystem=(home|host|host-os|host-etc|/|~)(:.*)?$|'
                       r'socket=(x11|session-bus|system-bus|ssh-auth)$|device=all$|'
                       r'talk-name=org\.freedesktop\.Flatpak$|allow=devel$|own-name=)')
IN_RUNTIME = {'json-glib', 'libsecret', 'gtksourceview', 'gtksourceview-5', 'curl', 'libcurl',
              'gtk', 'gtk4', 'libadwaita', 'glib', 'cairo', 'pango'}

try:
    with open(manifest_path, encoding='utf-8') as f:
        manifest = json.load(f)
    ok = isinstance(manifest, dict)
except (OSError, ValueError) as e:
    manifest, ok = {}, False
    error = e
tap.check('the manifest is valid JSON', ok, None if ok else error)

desktop = os.path.join(source, 'data', APP_ID + '.desktop.in')
metainfo = ET.parse(os.path.join(source, 'data', APP_ID + '.metainfo.xml.in')).getroot()
tap.check('the app id is org.assay.Assay, like the desktop file and the metainfo',
          manifest.get('id', manifest.get('app-id')) == APP_ID and os.path.exists(desktop)
          and metainfo.findtext('id') == APP_ID, manifest.get('id'))
tap.check('runtime org.gnome.Platform and sdk org.gnome.Sdk, of one numbered GNOME release',
          manifest.get('runtime') == 'org.gnome.Platform' and manifest.get('sdk') == 'org.gnome.Sdk'
          and re.fullmatch(r'\d{2,}', str(manifest.get('runtime-version', ''))), manifest.get('runtime-version'))

command = manifest.get('command')
exec_line = re.search(r'^Exec=(\S+)', open(desktop, encoding='utf-8').read(), re.M)
binaries = [b.text for b in metainfo.iter('binary')]
tap.check('the command is the one the desktop file runs and the metainfo provides',
          command == 'assay' and exec_line and exec_line.group(1) == command and command in binaries,
          command, binaries)
if build:
    installed = subprocess.run(['meson', 'introspect', '--targets', build], capture_output=True, text=True)
    targets = json.loads(installed.stdout or '[]')
    names = {t['name'] for t in targets if t.get('installed')}
    tap.check('meson installs assay-cli, which the metainfo provides too', 'assay-cli' in names
              and 'assay-cli' in binaries, sorted(names))
    if os.path.exists(os.path.join(source, 'src', 'app', 'meson.build')):
        tap.check(f'meson installs the command, {command}', command in names, sorted(names))
    else:
        tap.note(f'src/app has no meson.build yet: "{command}" is not built by this tree today')

finish_args = manifest.get('finish-args', [])
tap.check('finish-args are exactly the permissions Assay needs',
          set(finish_args) == ALLOWED_FINISH_ARGS and len(finish_args) == len(set(finish_args)),
          'extra: ' + ', '.join(sorted(set(finish_args) - ALLOWED_FINISH_ARGS)),
          'missing: ' + ', '.join(sorted(ALLOWED_FINISH_ARGS - set(finish_args))))
tap.check('no home, host, session bus, full device or Flatpak-escape permission',
          not [a for a in finish_args if FORBIDDEN.match(a)], [a for a in finish_args if FORBIDDEN.match(a)])

modules = manifest.get('modules', [])
tap.check('there are modules', isinstance(modules, list) and len(modules) >= 1)
problems = []
for module in modules:
    if not isinstance(module, dict):
        problems.append(f'a module that is not an object (a file reference?): {module!r}')
        continue
    name = module.get('name', '?')
    sources = module.get('sources', [])
    if not sources:
        problems.append(f'{name}: no sources')
    for src in sources:
        kind = src.get('type')
        if kind == 'dir':
            path = os.path.normpath(os.path.join(source, 'flatpak', src.get('path', '')))
            if not os.path.isfile(os.path.join(path, 'meson.build')):
                problems.append(f'{name}: dir {src.get("path")} is not a source tree')
        elif kind in ('archive', 'file'):
            if not str(src.get('url', '')).startswith('https://'):
                problems.append(f'{name}: {kind} not fetched over https: {src.get("url")}')
            if not re.fullmatch(r'[0-9a-f]{64}', str(src.get('sha256', ''))):
                problems.append(f'{name}: {kind} without a sha256')
        elif kind == 'git':
            if not re.fullmatch(r'[0-9a-f]{40}', str(src.get('commit', ''))):
                problems.append(f'{name}: git source not pinned to a commit')
        else:
            problems.append(f'{name}: source type {kind} is not checked by this test')
tap.check('every source is pinned: a sha256 for archives, a commit for git, or a local dir',
          not problems, *problems)
names = [m.get('name') for m in modules if isinstance(m, dict)]
tap.check('no module rebuilds what the GNOME runtime already has (json-glib, libsecret, curl, GTK…)',
          not (set(names) & IN_RUNTIME), sorted(set(names) & IN_RUNTIME))
tap.check('poppler is built with its GLib binding and without Qt',
          any(m.get('name') == 'poppler' and '-DENABLE_GLIB=ON' in m.get('config-opts', [])
              and '-DENABLE_QT5=OFF' in m.get('config-opts', []) and '-DENABLE_QT6=OFF' in m.get('config-opts', [])
              for m in modules if isinstance(m, dict)))
# Every library meson.build asks for: in the runtime (org.gnome.Platform and the freedesktop
# runtime under it), or built by a module of the manifest.
FROM_RUNTIME = {'glib-2.0', 'gio-2.0', 'gio-unix-2.0', 'gtk4', 'libadwaita-1', 'gtksourceview-5',
                'json-glib-1.0', 'libcurl', 'libsecret-1', 'cairo-pdf', 'pangocairo', 'sqlite3',
                'libseccomp', 'zlib', 'x11'}
FROM_MODULE = {'md4c': 'md4c', 'uchardet': 'uchardet', 'libzip': 'libzip', 'xlsxwriter': 'libxlsxwriter',
               'poppler-glib': 'poppler', 'libpq': 'libpq', 'libmariadb': 'libmariadb'}
wanted = set()
for root, _, files in os.walk(os.path.join(source, 'src')):
    for name in files:
        if name == 'meson.build':
            wanted |= set(re.findall(r"dependency\('([^']+)'", open(os.path.join(root, name), encoding='utf-8').read()))
wanted |= set(re.findall(r"dependency\('([^']+)'", open(os.path.join(source, 'meson.build'), encoding='utf-8').read()))
unknown = sorted(d for d in wanted if d not in FROM_RUNTIME and d not in FROM_MODULE)
unbuilt = sorted(d for d in wanted if d in FROM_MODULE and FROM_MODULE[d] not in names)
tap.check('every library meson.build needs is in the runtime or built by a module (libpq, libmariadb…)',
          wanted and not unknown and not unbuilt,
          'not known to be in the runtime: ' + ', '.join(unknown), 'no module builds: ' + ', '.join(unbuilt))
tap.check('libmariadb is built alone from the connector in MariaDB\'s source, with its pkg-config file in lib/',
          any(m.get('name') == 'libmariadb' and m.get('subdir') == 'libmariadb'
              and '-DINSTALL_PCDIR=lib/pkgconfig' in m.get('config-opts', []) for m in modules if isinstance(m, dict)))
last = modules[-1] if modules and isinstance(modules[-1], dict) else {}
project = open(os.path.join(source, 'meson.build'), encoding='utf-8').read()
tap.check('the last module is Assay itself, built with meson from this tree',
          last.get('name') == 'assay' and last.get('buildsystem') == 'meson'
          and any(s.get('type') == 'dir' and os.path.normpath(os.path.join(source, 'flatpak', s.get('path', '')))
                  == source for s in last.get('sources', []))
          and re.search(r"project\('assay'", project), last)
readme = open(os.path.join(source, 'flatpak', 'README.md'), encoding='utf-8').read()
tap.check('flatpak/README.md explains every permission and says the manifest is not built here',
          all(arg in readme for arg in ALLOWED_FINISH_ARGS) and 'cannot be built on' in readme
          and 'bubblewrap' in readme and 'flatpak-spawn --host' in readme)
tap.finish()
