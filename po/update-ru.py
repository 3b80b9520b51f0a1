#!/usr/bin/python3
# Keeps a .po file (po/ru.po) in its own order: entries whose msgid the pot still has, with their
# references refreshed; new entries appended with translations from a JSON file
# {msgid: msgstr or [forms]}; entries the pot lost are dropped.
import json, re, sys

def parse(path):
    text = open(path, encoding='utf-8').read()
    blocks = [b for b in re.split(r'\n\s*\n', text) if b.strip()]
    out = []
    for b in blocks:
        lines = b.split('\n')
        if all(l.startswith('#~') or not l.strip() for l in lines):
            continue
        out.append(lines)
    return out

def field(lines, name):
    val, on = [], False
    for l in lines:
        if l.startswith(name + ' '):
            on = True; val.append(l[len(name)+1:]); continue
        if on and l.startswith('"'):
            val.append(l); continue
        on = False
    return ''.join(json.loads(v) for v in val) if val else None

def key(lines):
    return (field(lines, 'msgctxt'), field(lines, 'msgid'))

pot = parse(sys.argv[1]); old = parse(sys.argv[2]); tr = json.load(open(sys.argv[3], encoding='utf-8'))
potmap = {key(e): e for e in pot}
result = []
seen = set()
for e in old:
    k = key(e)
    if k[1] == '':
        result.append(e); seen.add(k); continue
    if k not in potmap:
        continue
    refs = [l for l in potmap[k] if l.startswith('#:') or l.startswith('#.')]
    body = [l for l in e if not (l.startswith('#:') or l.startswith('#.'))]
    result.append(refs + body); seen.add(k)
missing = []
def q(s):
    return json.dumps(s, ensure_ascii=False)
for e in pot:
    k = key(e)
    if k in seen: continue
    if k[1] not in tr:
        missing.append(k[1]); continue
    t = tr[k[1]]
    lines = [l for l in e if not l.startswith('msgstr')]
    lines = [l for l in lines if not l.startswith('#, fuzzy')]
    # drop the pot's msgstr continuation lines
    cleaned = []
    skip = False
    for l in e:
        if l.startswith('msgstr'):
            skip = True; continue
        if skip and l.startswith('"'): continue
        skip = False
        cleaned.append(l)
    if isinstance(t, list):
        for i, f in enumerate(t): cleaned.append('msgstr[%d] %s' % (i, q(f)))
    else:
        cleaned.append('msgstr ' + q(t))
    result.append(cleaned)
if missing:
    print('untranslated:', *missing, sep='\n  '); sys.exit(1)
open(sys.argv[2], 'w', encoding='utf-8').write('\n\n'.join('\n'.join(e) for e in result) + '\n')
