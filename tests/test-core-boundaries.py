#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The core's boundaries: src/DESIGN.md's "Who may include whom", the include path each core
# folder is compiled with (compile_commands.json) and the headers its sources include agree;
# and a header outside a folder's list is really not found when that folder compiles.
#   test-core-boundaries.py SOURCE_ROOT BUILD_ROOT
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

source, build = sys.argv[1:3]
core = os.path.join(source, 'src', 'core')
n = 0
failed = 0


def check(what, ok, *details):
    global n, failed
    n += 1
    print(('ok %d - %s' if ok else 'not ok %d - %s') % (n, what))
    if not ok:
        failed += 1
        for d in details:
            print('# ' + str(d).replace('\n', '\n# '))
    return ok


folders = sorted(d for d in os.listdir(core) if os.path.isdir(os.path.join(core, d)))

# The table: "| `folder` | `a`, `b` |", "| `x` | all but `y`, `z` and `w` |" or an empty cell.
design = open(os.path.join(source, 'src', 'DESIGN.md'), encoding='utf-8').read()
section = design.split('## Who may include whom', 1)[1].split('\n## ', 1)[0]
table = {}
for line in section.splitlines():
    m = re.match(r'^\| `([a-z]+)` \|(.*)\|$', line)
    if not m:
        continue
    cell = m.group(2).strip()
    named = set(re.findall(r'`([a-z]+)`', cell))
    table[m.group(1)] = (set(folders) - named - {m.group(1)}) if cell.startswith('all but') else named
check('src/DESIGN.md lists every core folder once', sorted(table) == folders, sorted(table), folders)

# What the build gives each folder: the src/core/<x> folders on its sources' include path.
commands = json.load(open(os.path.join(build, 'compile_commands.json')))
built = {}
probe_command = {}
for entry in commands:
    path = os.path.normpath(os.path.join(entry['directory'], entry['file']))
    rel = os.path.relpath(path, core)
    if rel.startswith('..') or os.sep not in rel:
        continue
    folder = rel.split(os.sep)[0]
    args = shlex.split(entry['command'])
    dirs = set()
    for a in args:
        if a.startswith('-I'):
            d = os.path.normpath(os.path.join(entry['directory'], a[2:]))
            r = os.path.relpath(d, core)
            if not r.startswith('..') and r != '.' and os.sep not in r:
                dirs.add(r)
    built.setdefault(folder, []).append(dirs - {folder})
    probe_command.setdefault(folder, (entry['directory'], args, entry['file']))
for folder in folders:
    seen = built.get(folder, [])
    check(f'{folder}: compiled with the include path the table gives it',
          seen and all(d == table.get(folder) for d in seen),
          'table: %s' % sorted(table.get(folder, [])), 'build: %s' % [sorted(d) for d in seen[:1]])

# The sources: every quoted include of a core header is of its own folder or one it may use.
owner = {}
for folder in folders:
    for f in os.listdir(os.path.join(core, folder)):
        if f.endswith('.h'):
            owner[f] = folder
for folder in folders:
    outside = []
    for f in sorted(os.listdir(os.path.join(core, folder))):
        if f.endswith(('.c', '.h')):
            text = open(os.path.join(core, folder, f), encoding='utf-8', errors='replace').read()
            for h in re.findall(r'#include "([^"]+)"', text):
                if h in owner and owner[h] != folder and owner[h] not in table.get(folder, set()):
                    outside.append(f'{f}: {h} ({owner[h]})')
    check(f'{folder}: includes only what the table allows', not outside, *outside)

# A header of a folder sandbox may not include is not found when sandbox compiles; one it may
# include is.
directory, args, file = probe_command['sandbox']
with tempfile.TemporaryDirectory() as tmp:
    def compiles(header):
        probe = os.path.join(tmp, 'probe.c')
        with open(probe, 'w') as f:
            f.write('#include "config.h"\n#include "%s"\nint probe (void) { return 0; }\n' % header)
        argv = []
        skip = False
        for a in args:
            if skip:
                skip = False
                continue
            if a in ('-o', '-MF', '-MQ'):
                skip = True
                continue
            if a == file or a == '-c':
                continue
            argv.append(a)
        return subprocess.run(argv + ['-fsyntax-only', probe], cwd=directory, capture_output=True, text=True)
    allowed = compiles('assay-json.h')
    check('sandbox compiles a file that includes a json header', allowed.returncode == 0, allowed.stderr)
    forbidden = compiles('assay-agent.h')
    check('sandbox cannot include an agent header: it is not found',
          forbidden.returncode != 0 and 'assay-agent.h' in forbidden.stderr, forbidden.stderr)

print('1..%d' % n)
sys.exit(1 if failed else 0)
