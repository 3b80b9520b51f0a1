#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""po/POTFILES.in is complete: every file under src/ and data/ with translatable strings is
listed, and every listed file exists. TAP.

Translatable means: C with _(), N_(), C_(), NC_(), Q_() or a gettext plural call; a GtkBuilder
file with translatable="yes"; the desktop file and the AppStream metainfo templates; a GSettings
schema with a summary or a description.

Usage: test-potfiles.py SOURCE_ROOT"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))

C_MARKS = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|Q_)\s*\(|'
                     r'(?<![A-Za-z0-9_])(?:g_d?n?gettext|g_dpgettext2?|d?ngettext|dcngettext)\s*\(')
UI_MARK = re.compile(r'translatable\s*=\s*"(?:yes|true|1)"')
SCHEMA_MARK = re.compile(r'<(?:summary|description)\b')


def translatable(rel, text):
    name = os.path.basename(rel)
    if name.endswith(('.c', '.h')):
        return C_MARKS.search(text) is not None
    if name.endswith(('.ui', '.blp')):
        return UI_MARK.search(text) is not None
    if name.endswith(('.desktop.in', '.metainfo.xml.in', '.appdata.xml.in')):
        return True
    if name.endswith('.gschema.xml'):
        return SCHEMA_MARK.search(text) is not None
    return False


def scan():
    found = set()
    for top in ('src', 'data'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
            for filename in sorted(filenames):
                path = os.path.join(dirpath, filename)
                rel = os.path.relpath(path, root)
                try:
                    with open(path, encoding='utf-8') as f:
                        text = f.read()
                except (UnicodeDecodeError, OSError):
                    continue
                if translatable(rel, text):
                    found.add(rel)
    return found


def listed():
    entries = []
    with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                entries.append(line)
    return entries


tests = []


def check(description, ok, diagnostics=()):
    tests.append((description, ok, list(diagnostics)))


found = scan()
entries = listed()
missing = sorted(found - set(entries))
gone = sorted(e for e in entries if not os.path.isfile(os.path.join(root, e)))
duplicates = sorted({e for e in entries if entries.count(e) > 1})
unmarked = sorted(e for e in set(entries) - found if e not in gone)

check('the scan finds the CLI, the core and the data templates',
      any(f.startswith('src/cli/') for f in found) and any(f.startswith('src/core/') for f in found)
      and any(f.endswith('.desktop.in') for f in found)
      and any(f.endswith('.metainfo.xml.in') for f in found),
      ['found: ' + ', '.join(sorted(found))])
check('every file with translatable strings is in po/POTFILES.in', not missing,
      ['missing from po/POTFILES.in: ' + m for m in missing])
check('every file in po/POTFILES.in exists', not gone,
      ['listed but not found: ' + g for g in gone])
check('po/POTFILES.in lists no file twice', not duplicates,
      ['listed twice: ' + d for d in duplicates])
check('every file in po/POTFILES.in still has translatable strings', not unmarked,
      ['listed but has nothing to translate: ' + u for u in unmarked])

print('TAP version 13')
print(f'1..{len(tests)}')
failed = 0
for i, (description, ok, diagnostics) in enumerate(tests, 1):
    print(f'{"ok" if ok else "not ok"} {i} - {description}')
    if not ok:
        failed += 1
        for line in diagnostics:
            print('# ' + line)
print(f'# {len(found)} files with translatable strings, {len(entries)} listed')
sys.exit(1 if failed else 0)
