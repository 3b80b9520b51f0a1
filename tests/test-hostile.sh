#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Attacks on Assay through what it is handed, each one that worked once kept here: a crafted
# or shared session folder (host paths, links, FIFOs, deep JSON, escapes, active content),
# code in the sandbox (the host channel, fork bombs, quotas, sparse files, floods, the CPU
# share, the supervisor), files (links as datasets, very wide tables) and the model (escapes,
# deep transcripts, endless words). On both backends where they apply.
# Usage: test-hostile.sh ASSAY_CLI
set -uo pipefail
cli="$1"
work=$(mktemp -d)
trap 'chmod -R u+rwX "$work" 2>/dev/null; rm -rf "$work"' EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
export cli work

printf 'region,amount\nnorth,1\nsouth,2\n' > "$work/sales.csv"
# A private file of the analyst's, which nothing of a shared session may reach.
mkdir -p "$work/home/private"
printf 'HOST-SECRET-%s\n' "$RANDOM$RANDOM" > "$work/home/private/secret.txt"
chmod 600 "$work/home/private/secret.txt"
secret=$(cat "$work/home/private/secret.txt")
export secret

# The model lists /data and prints everything it can read there.
cat > "$work/snoop.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_s", "name": "execute_python", "arguments": {"code": "import os\nfor name in sorted(os.listdir('/data')):\n    try:\n        print(name, '=', open('/data/' + name, errors='replace').read()[:200])\n    except OSError as e:\n        print(name, 'unreadable', e)"}}]},
  {"text": "Listed."}]}
JSON
cat > "$work/first.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python", "arguments": {"code": "print('first')"}}]},
  {"text": "Done."}]}
JSON

# A session folder as someone might share it: datasets naming a host path, "../", a link
# planted in data/, and data/ itself a link for a second session.
craft_session () { # dir
  "$cli" ask --backend bwrap --provider recorded --transcript "$work/first.json" --data "$work/sales.csv" \
    --yes --out "$1" 'First' >/dev/null 2>&1 || return 1
  ln -s "$work/home/private/secret.txt" "$1/data/planted.txt"
  python3 - "$1/session.json" "$work/home/private/secret.txt" <<'PY'
import json, sys
path, secret = sys.argv[1], sys.argv[2]
record = json.load(open(path))
record['datasets'] += [
    {'name': 'secret.txt', 'path': secret},
    {'name': 'up.txt', 'path': '../../home/private/secret.txt'},
    {'name': '../secret.txt', 'path': 'data/../../home/private/secret.txt'},
    {'name': 'planted.txt', 'path': 'data/planted.txt'},
]
record['cells'][0]['artifacts'] = [{'name': 'leak.png', 'path': secret, 'bytes': 10, 'mime': 'image/png'},
                                   {'name': 'up.png', 'path': '../home/private/secret.txt', 'bytes': 10, 'mime': 'image/png'}]
json.dump(record, open(path, 'w'))
PY
}
export -f craft_session

echo "1..36"
for backend in docker bwrap; do
  check "$backend: a crafted session's datasets resolve only inside its data/ (ask --resume)" bash -c "
    craft_session '$work/s-$backend' &&
    '$cli' ask --backend $backend --provider recorded --resume '$work/s-$backend' --transcript '$work/snoop.json' --yes 'List' >'$work/out-$backend' 2>'$work/err-$backend';
    status=\$?
    cat '$work/err-$backend'
    [ \$status -eq 0 ] &&
    grep -q 'sales.csv = region,amount' '$work/err-$backend' &&
    ! grep -rqF \"\$secret\" '$work/s-$backend' '$work/out-$backend' '$work/err-$backend' &&
    [ \"\$(stat -c %a '$work/home/private/secret.txt')\" = 600 ]"

  check "$backend: user code cannot open the kernel's channel through /proc/1/fd" bash -c "
    cat > '$work/forge.py' <<'PY'
import os
opened = []
for pid in ("1",):
    for n in range(8):
        try:
            fd = os.open('/proc/%s/fd/%d' % (pid, n), os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        opened.append(n)
        try:
            os.write(fd, b'{\"type\":\"output\",\"id\":\"c1\",\"output\":{\"output_type\":\"stream\",\"name\":\"stdout\",\"text\":\"FORGED\\\\n\"}}\\n')
            os.write(fd, b'{\"type\":\"done\",\"id\":\"c1\",\"status\":\"ok\",\"execution_count\":99}\\n')
            os.write(fd, b'[' * 300000 + b'\\n')
        except OSError:
            pass
print('opened', opened)
PY
    '$cli' exec --backend $backend --json '$work/forge.py' >'$work/forge-$backend.jsonl' 2>'$work/forge-$backend.err';
    status=\$?
    cat '$work/forge-$backend.jsonl' '$work/forge-$backend.err' | head -c 2000
    [ \$status -eq 0 ] && python3 - '$work/forge-$backend.jsonl' <<'PY'
import json, sys
cells = [json.loads(l) for l in open(sys.argv[1])]
assert len(cells) == 1, cells
text = ''.join(o.get('text', '') for o in cells[0]['outputs'])
assert text == 'opened []\n', text
assert 'FORGED' not in text
PY"

  check "$backend: --data given a link copies the file it names and leaves its mode alone" bash -c "
    ln -sf '$work/home/private/secret.txt' '$work/link-$backend.txt' &&
    printf 'print(open(\"/data/link-$backend.txt\").read().strip())\n' > '$work/read-link.py' &&
    '$cli' exec --backend $backend --json --data '$work/link-$backend.txt' '$work/read-link.py' >'$work/link-$backend.jsonl' &&
    grep -qF \"\$secret\" '$work/link-$backend.jsonl' &&
    [ \"\$(stat -c %a '$work/home/private/secret.txt')\" = 600 ]"

  check "$backend: sys.stdout.buffer and sys.stderr.buffer take bytes" bash -c "
    printf 'import sys\nsys.stdout.buffer.write(b\"bytes \\\\xc3\\\\xa9 \\\\xff end\\\\n\")\nsys.stdout.buffer.flush()\nsys.stderr.buffer.write(b\"err bytes\\\\n\")\nprint(\"text after\")\n' > '$work/buffer.py' &&
    '$cli' exec --backend $backend --json '$work/buffer.py' >'$work/buffer-$backend.jsonl' &&
    python3 - '$work/buffer-$backend.jsonl' <<'PY'
import json, sys
cell = json.loads(open(sys.argv[1]).read())
assert cell['status'] == 'ok', cell
out = ''.join(o['text'] for o in cell['outputs'] if o.get('name') == 'stdout')
err = ''.join(o['text'] for o in cell['outputs'] if o.get('name') == 'stderr')
assert out == 'bytes \u00e9 \ufffd end\ntext after\n', repr(out)
assert err == 'err bytes\n', repr(err)
PY"
done

# What is left of this test's own sandboxes: cgroups, containers, kernel processes. Only its
# own (a window or another run on the same machine may open and close sandboxes meanwhile):
# the CLI runs through own-cli, which notes its pid; bubblewrap's cgroups carry their owner's
# pid in their name, Docker's containers in the label assay.pid, and a kernel process is ours
# when it sits in one of those cgroups or containers.
cat > "$work/own-cli" <<SH
#!/bin/sh
echo \$\$ >> '$work/own-pids'
exec '$cli' "\$@"
SH
chmod +x "$work/own-cli"
: > "$work/own-pids"
cat > "$work/leftovers.py" <<'PY'
import os, re, subprocess, sys
pids = set(open(sys.argv[1]).read().split())
cgroups = []
for root, dirs, _ in os.walk('/sys/fs/cgroup'):
    if root.count('/') >= 7:
        dirs[:] = []
    for d in dirs:
        m = re.match(r'^assay-.*-(\d+)-[^-]*-\d+$', d)
        if m and m.group(1) in pids:
            cgroups.append(d)
containers = []
try:
    out = subprocess.run(['docker', 'ps', '-a', '--no-trunc', '--filter', 'label=assay.session',
                          '--format', '{{.ID}} {{.Label "assay.pid"}}'],
                         capture_output=True, text=True, timeout=60).stdout
    containers = [line.split()[0] for line in out.splitlines() if len(line.split()) == 2 and line.split()[1] in pids]
except (OSError, subprocess.SubprocessError):
    pass
marks = cgroups + containers
procs = 0
for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
        cmdline = open('/proc/%s/cmdline' % pid, 'rb').read().replace(b'\0', b' ').decode(errors='replace')
        if not re.search(r'assay_(kernel|worker)\.py|sleep 1000', cmdline):
            continue
        where = open('/proc/%s/cgroup' % pid).read()
    except OSError:
        continue
    if any(m in where for m in marks):
        procs += 1
print(len(cgroups), len(containers), procs)
PY
leftovers () {
  python3 "$work/leftovers.py" "$work/own-pids"
}
# Whether nothing was added between two readings (earlier runs' leftovers may go meanwhile).
no_more () { # before after
  local -a b=($1) a=($2)
  echo "cgroups, containers, kernel processes: before ${b[*]}, after ${a[*]}"
  [ "${a[0]}" -le "${b[0]}" ] && [ "${a[1]}" -le "${b[1]}" ] && [ "${a[2]}" -le "${b[2]}" ]
}
export -f leftovers no_more
printf 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n' > "$work/bomb.py"
printf 'print("after the bomb")\n' > "$work/after.py"
printf 'import subprocess\nsubprocess.Popen(["sleep", "1000"])\nprint("ok")\n' > "$work/background.py"
for backend in docker bwrap; do
  # The cell ends by its timeout and grace period (8 + 3 s; about 13 s for the whole command
  # here, a figure for the closing note, not asserted), the next cell gets a fresh sandbox,
  # and nothing of the first survives. The bound below only catches a hang.
  check "$backend: a fork bomb with 256 MB ends with a clear status, the next cell runs, nothing is left" bash -c "
    before=\$(leftovers)
    start=\$(date +%s%N)
    timeout 120 '$work/own-cli' exec --backend $backend --memory 256 --timeout 8 --json '$work/bomb.py' '$work/after.py' >'$work/bomb-$backend.jsonl' 2>'$work/bomb-$backend.err'
    status=\$?
    echo \"# the command took \$(( (\$(date +%s%N) - start) / 1000000 )) ms\"
    cat '$work/bomb-$backend.jsonl' '$work/bomb-$backend.err' | head -c 3000
    [ \$status -eq 0 ] || exit 1
    python3 - '$work/bomb-$backend.jsonl' <<'PY' || exit 1
import json, sys
bomb, after = (json.loads(l) for l in open(sys.argv[1]))
assert bomb['status'] in ('timeout', 'oom', 'limit') and bomb['state_lost'] and bomb['reason'], bomb
assert after['status'] == 'ok', after
assert ''.join(o.get('text', '') for o in after['outputs']) == 'after the bomb\\n', after
PY
    no_more \"\$before\" \"\$(leftovers)\""

  check "$backend: 50 sessions in a row leave no cgroup, container or process behind" bash -c "
    before=\$(leftovers)
    for i in \$(seq 1 50); do
      '$work/own-cli' exec --backend $backend '$work/background.py' >'$work/bg-$backend.out' 2>&1 || { cat '$work/bg-$backend.out'; exit 1; }
      grep -qx ok '$work/bg-$backend.out' || { cat '$work/bg-$backend.out'; exit 1; }
    done
    no_more \"\$before\" \"\$(leftovers)\""
done

# A record nested 300,000 deep: json-glib's recursive parser would overflow the stack.
mkdir -p "$work/deep/data" "$work/deep/artifacts"
python3 -c "
import sys
sys.stdout.write('{\"format_version\": 1, \"id\": \"deep\", \"title\": ' + '[' * 300000 + ']' * 300000 + '}')
" > "$work/deep/session.json"
check "a session.json nested 300,000 deep: session show fails in words, no crash" bash -c "
  '$cli' session show '$work/deep' >'$work/out' 2>'$work/err'; status=\$?; cat '$work/err';
  [ \$status -ne 0 ] && [ \$status -lt 128 ] && grep -qi 'nested\|damaged' '$work/err'"
check "the same record in a list: session list still lists, no crash" bash -c "
  '$cli' session list '$work' >'$work/out' 2>'$work/err'; status=\$?; cat '$work/out' '$work/err'; [ \$status -lt 128 ]"
check "the same record: export fails in words, no crash" bash -c "
  '$cli' export '$work/deep' -o '$work/deep.html' >'$work/out' 2>'$work/err'; status=\$?; cat '$work/err';
  [ \$status -ne 0 ] && [ \$status -lt 128 ] && [ ! -s '$work/deep.html' ]"

# An export of the crafted session embeds nothing from outside it.
check "export of a crafted session embeds no host file (HTML and notebook)" bash -c "
  '$cli' export '$work/s-bwrap' -o '$work/crafted.html' &&
  '$cli' export '$work/s-bwrap' -o '$work/crafted.ipynb' &&
  ! grep -qF \"\$secret\" '$work/crafted.html' '$work/crafted.ipynb' &&
  ! grep -qF \"\$(base64 -w0 < '$work/home/private/secret.txt')\" '$work/crafted.html' '$work/crafted.ipynb'"

# Sparse files: 8 of 64 MiB take no blocks in the sandbox; on the host they must not take
# 512 MiB either (nor more than the cell's 256 MiB in all). Storing is the host's, whatever
# the backend.
printf 'import os\nfor i in range(8):\n    with open("/workspace/sparse%%d.bin" %% i, "wb") as f:\n        f.truncate(64 * 1024 * 1024)\n' > "$work/sparse.py"
check "sparse artifacts stay sparse on the host and count against a total per cell" bash -c "
  '$cli' exec --backend bwrap --json --out '$work/sparse-out' '$work/sparse.py' >'$work/sparse.jsonl' &&
  python3 - '$work/sparse.jsonl' <<'PY' &&
import json, sys
cell = json.load(open(sys.argv[1]))
assert cell['status'] == 'limit' and 'together' in cell['reason'], cell
total = sum(a['bytes'] for a in cell['artifacts'])
assert 0 < total <= 256 * 1024 * 1024, total
PY
  used=\$(du -sk '$work/sparse-out' | cut -f1); echo \"on disk: \$used KiB\"; [ \$used -lt 10240 ]"

# The CPU share is enforced: two processes spinning for 3 s under the default 1 CPU get about
# 3 s of CPU between them, not 6. (On a busy machine they get less, never more.)
cat > "$work/cpu.py" <<'PY'
import multiprocessing as mp, os, time
def spin(seconds):
    end = time.time() + seconds
    while time.time() < end:
        pass
start = time.time()
workers = [mp.Process(target=spin, args=(3,)) for _ in range(2)]
for w in workers:
    w.start()
for w in workers:
    w.join()
t = os.times()
print('cpu/wall %.2f' % ((t.children_user + t.children_system) / (time.time() - start)))
PY
# User code may signal the supervisor (same uid): the cell ends, the next one gets a fresh
# sandbox. (Under Docker the supervisor is PID 1 and the kernel drops the SIGKILL.)
printf 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(1)\n' > "$work/kill-supervisor.py"
for backend in docker bwrap; do
  check "$backend: two spinning processes get one CPU between them" bash -c "
    '$cli' exec --backend $backend '$work/cpu.py' >'$work/cpu-$backend.out' 2>&1; cat '$work/cpu-$backend.out'
    ratio=\$(sed -n 's/^cpu\/wall //p' '$work/cpu-$backend.out'); [ -n \"\$ratio\" ] &&
    python3 -c \"import sys; sys.exit(0 if float('\$ratio') < 1.4 else 1)\""
  check "$backend: user code killing the supervisor ends its cell; the next runs" bash -c "
    '$cli' exec --backend $backend --json '$work/kill-supervisor.py' '$work/after.py' >'$work/kill-$backend.jsonl' &&
    python3 - '$work/kill-$backend.jsonl' <<'PY'
import json, sys
killed, after = (json.loads(l) for l in open(sys.argv[1]))
assert killed['status'] in ('ok', 'crashed'), killed
assert after['status'] == 'ok' and after['outputs'][0]['text'] == 'after the bomb\\n', after
PY"
done

# Kernel quotas the sandbox would share with the desktop user: inotify instances, POSIX message
# queues and kernel keys are refused under bubblewrap (its uid maps to the user's); under
# Docker (whose default profile refuses keys) each sandbox's kernel runs as a uid of its own
# (test-sandbox's hostile/quotas-per-sandbox: two at once). /dev/shm is bounded on both.
cat > "$work/quota.py" <<'PY'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def refused(r):
    return r < 0 and ctypes.get_errno() == errno.EPERM
res = {
    'inotify': refused(libc.inotify_init1(0)),
    'mqueue': refused(libc.mq_open(b'/assay-q', os.O_CREAT | os.O_RDWR, 0o600, None)),
    'keys': refused(libc.syscall(248, b'user', b'k', b'v', 1, ctypes.c_int(-2))),
    'uid': os.getuid(),
}
try:
    with open('/dev/shm/fill', 'wb') as f:
        for i in range(160):
            f.write(b'x' * (1 << 20))
    res['shm'] = 'unbounded'
except OSError as e:
    res['shm'] = 'bounded'
print(sorted(res.items()))
PY
check "bwrap: inotify, message queues and kernel keys are refused; /dev/shm is bounded" bash -c "
  '$cli' exec --backend bwrap '$work/quota.py' 2>&1 | tee '$work/quota-bwrap.out' |
    grep -qF \"[('inotify', True), ('keys', True), ('mqueue', True), ('shm', 'bounded'), ('uid', 1000)]\""
check "docker: the kernel's uid is not the desktop user's, keys are refused, /dev/shm is bounded" bash -c "
  '$cli' exec --backend docker --memory 1024 '$work/quota.py' 2>&1 | tee '$work/quota-docker.out' |
    grep -qE \"\\('keys', True\\), \\('mqueue', False\\), \\('shm', 'bounded'\\), \\('uid', 21474[2-8][0-9]{4}\\)\\]\""

# A 1.4 MB CSV of 150,000 columns took 1.2 GB to inspect: wide tables are refused in words.
python3 -c "
n = 150000
print(','.join('c%d' % i for i in range(n)))
print(','.join('1' for i in range(n)))" > "$work/wide.csv"
check "a CSV of 150,000 columns is refused with the reason, in bounded memory" bash -c "
  /usr/bin/time -f '%M' -o '$work/wide.rss' '$cli' inspect '$work/wide.csv' >'$work/out' 2>'$work/err'; status=\$?
  cat '$work/err'; echo \"peak RSS \$(cat '$work/wide.rss') KiB\"
  [ \$status -eq 1 ] && grep -q '150000 columns' '$work/err' && [ \$(tail -1 '$work/wide.rss') -lt 1048576 ]"

# Output floods: 200,000 one-character writes are joined into a few stream outputs (they were
# 200,000 objects in memory and in session.json), and displays are capped per cell.
printf 'import sys\nfor i in range(200000):\n    sys.stdout.write("x")\n    sys.stdout.flush()\n' > "$work/flood-stream.py"
printf 'for i in range(12000):\n    display(i)\n' > "$work/flood-display.py"
check "200,000 tiny outputs are joined; more than 10,000 displays are cut with status limit" bash -c "
  '$cli' exec --backend bwrap --json '$work/flood-stream.py' '$work/flood-display.py' >'$work/flood.jsonl' &&
  python3 - '$work/flood.jsonl' <<'PY'
import json, sys
stream, display = (json.loads(l) for l in open(sys.argv[1]))
assert stream['status'] == 'ok', stream['status']
assert len(stream['outputs']) <= 8, len(stream['outputs'])
assert ''.join(o['text'] for o in stream['outputs']) == 'x' * 200000
assert display['status'] == 'limit' and '10,000' in display['reason'], display['reason']
assert len(display['outputs']) == 10000, len(display['outputs'])
PY"

# Active content in a shared record's outputs: none of it may be live in an export.
check "exports carry no script, SVG or raw HTML of a record's outputs (HTML and notebook)" bash -c "
  cp -r '$work/s-bwrap' '$work/s-active' &&
  python3 - '$work/s-active/session.json' <<'PY' &&
import json, sys
record = json.load(open(sys.argv[1]))
record['cells'][0]['outputs'] = [
    {'output_type': 'display_data', 'metadata': {}, 'data': {
        'application/javascript': 'ACTIVE_JS()',
        'image/svg+xml': '<svg onload=\"ACTIVE_SVG()\"></svg>',
        'text/html': '<script>ACTIVE_SCRIPT()</script><table><tr><th onclick=\"ACTIVE_ON()\">region</th></tr><tr><td>north<img src=x onerror=ACTIVE_IMG()></td></tr></table>',
        'text/plain': 'plain text kept'}},
    {'output_type': 'display_data', 'metadata': {}, 'data': {
        'text/markdown': '<iframe src=\"javascript:ACTIVE_MD()\"></iframe>',
        'text/html': '<b>ACTIVE_NOT_A_TABLE</b>'}},
]
json.dump(record, open(sys.argv[1], 'w'))
PY
  '$cli' export '$work/s-active' -o '$work/active.ipynb' && '$cli' export '$work/s-active' -o '$work/active.html' &&
  python3 - '$work/active.ipynb' '$work/active.html' <<'PY'
import json, sys
nb = open(sys.argv[1]).read()
html = open(sys.argv[2]).read()
for text, name in ((nb, 'notebook'), (html, 'HTML')):
    assert 'ACTIVE' not in text, (name, text[text.find('ACTIVE') - 200:text.find('ACTIVE') + 100])
outputs = [o for c in json.loads(nb)['cells'] if c['cell_type'] == 'code' for o in c.get('outputs', [])]
shown = [o['data'] for o in outputs if o.get('data')]
assert any('plain text kept' in ''.join(d.get('text/plain', '')) for d in shown), shown
assert any('north' in ''.join(d.get('text/html', '')) for d in shown), shown
PY"

# One word of a million characters in the answer: Pango broke it character by character,
# over five minutes for the PDF. The bound only catches that; about 4 s here.
check "a PDF export of an answer with a 1,000,000-character word finishes" bash -c "
  cp -r '$work/s-bwrap' '$work/s-word' &&
  python3 - '$work/s-word/session.json' <<'PY' &&
import json, sys
record = json.load(open(sys.argv[1]))
record['messages'][-1]['text'] = 'Word: ' + 'w' * 1000000
json.dump(record, open(sys.argv[1], 'w'))
PY
  timeout 120 '$cli' export '$work/s-word' -o '$work/word.pdf' && pdftotext '$work/word.pdf' - | grep -q 'wwwwwwwwww'"

# Terminal escapes from the model, the sandbox and a shared record: OSC 52 (set the clipboard),
# OSC 8 (a link), a title change, clear-screen, an 8-bit CSI. None may reach the terminal.
python3 - "$work/escapes.json" <<'PY'
import json, sys
esc = '\x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\ \x1b]0;title\x07 \x1b[2J\x1b[H \u009b31m'
turns = [
    {'text': 'Plan ' + esc, 'tool_calls': [{'id': 'call_e', 'name': 'execute_python', 'arguments': {
        'code': '# ' + esc + '\nprint(' + repr(esc) + ')\nimport sys\nsys.stderr.write(' + repr(esc) + ')\n' + repr(esc),
        'description': 'escapes ' + esc}}]},
    {'text': 'Answer ' + esc},
]
json.dump({'turns': turns}, open(sys.argv[1], 'w'))
PY
no_escapes () { # files...
  python3 - "$@" <<'PY'
import sys
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    for bad in (b'\x1b', b'\x07', b'\xc2\x9b'):
        assert bad not in data, '%r in %s: %r' % (bad, path, data[:2000])
PY
}
export -f no_escapes
check "ask: the model's text, code and answer and the cell's output reach the terminal without escapes" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/escapes.json' --yes --out '$work/s-esc' 'Q' >'$work/esc.out' 2>'$work/esc.err' &&
  grep -q 'Answer' '$work/esc.out' && grep -q 'link' '$work/esc.err' && no_escapes '$work/esc.out' '$work/esc.err'"
check "session show and list print a shared record's escapes as nothing" bash -c "
  python3 - '$work/s-esc/session.json' <<'PY' &&
import json, sys
record = json.load(open(sys.argv[1]))
record['title'] = 'Title \x1b]0;pwned\x07\x1b[2J'
json.dump(record, open(sys.argv[1], 'w'))
PY
  '$cli' session show '$work/s-esc' >'$work/show.out' 2>&1 && '$cli' session list '$work' >'$work/list.out' 2>&1 &&
  grep -q Title '$work/show.out' && grep -q Title '$work/list.out' && no_escapes '$work/show.out' '$work/list.out'"

# Something else where the record should be: a FIFO would block a reader for ever, a link
# would read a file elsewhere.
mkdir -p "$work/fifo/data" "$work/link/data"
mkfifo "$work/fifo/session.json"
ln -s "$work/s-bwrap/session.json" "$work/link/session.json"
check "a FIFO as session.json: show, list and export fail at once instead of hanging" bash -c "
  for command in 'session show $work/fifo' 'session list $work' 'export $work/fifo -o $work/fifo.html'; do
    timeout 20 '$cli' \$command >'$work/out' 2>'$work/err'; status=\$?; cat '$work/err'
    [ \$status -ne 124 ] && [ \$status -lt 128 ] || exit 1
  done
  grep -q 'not a regular file' <('$cli' session show '$work/fifo' 2>&1)"
check "a link as session.json is not followed" bash -c "
  ! '$cli' session show '$work/link' >'$work/out' 2>'$work/err' && cat '$work/err' && grep -q 'symbolic link' '$work/err'"

# /proc/self/mountinfo names the folder each bind mount came from, and the model reads what a
# cell prints: as a desktop user (not root), neither the home nor the cache may appear there.
user=assay-hosttest
id "$user" >/dev/null 2>&1 || useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
                                      --gid nogroup "$user" >/dev/null 2>&1
mkdir -p "$work/desktop/home"; chmod 755 "$work" "$work/desktop"
cp "$work/sales.csv" "$work/desktop/home/sales.csv"
printf 'print(open("/data/sales.csv").read().split()[0])\nprint(open("/proc/self/mountinfo").read())\n' > "$work/desktop/home/mounts.py"
chown -R "$user:nogroup" "$work/desktop/home"
check "bwrap as a desktop user: mountinfo names neither the home nor the cache, and the data folder is gone after" bash -c "
  runuser -u '$user' -- env -i HOME='$work/desktop/home' PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    '$cli' exec --backend bwrap --data '$work/desktop/home/sales.csv' '$work/desktop/home/mounts.py' > '$work/mounts.out' 2>&1
  status=\$?; cat '$work/mounts.out'; [ \$status -eq 0 ] || exit 1
  grep -q '^region,amount' '$work/mounts.out' && ! grep -E '^[0-9]+ [0-9]+ ' '$work/mounts.out' | grep -q '$work/desktop' &&
  grep -Eq ' /var/tmp/assay-[A-Za-z0-9]{6}/data /data ' '$work/mounts.out' &&
  [ -z \"\$(find /var/tmp -maxdepth 1 -name 'assay-*' -user '$user')\" ]"

# The image tree is bound as the sandbox's root, and a bind mount shows in mountinfo the folder
# it came from: a tree in a home names its user. Here the tree is in a folder named with a
# marker (hard links to the real one), for root and for a desktop user; none of the mount
# tables may name it, and the sandbox still works.
tree=$("$cli" sandbox status --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["bwrap"]["tree"])')
marker=home-Zq7marker
store="$work/$marker/.local/share/assay/sandbox"
mkdir -p "$store"; chmod 755 "$work" "$work/$marker" "$work/$marker/.local" "$work/$marker/.local/share" \
                                "$work/$marker/.local/share/assay" "$store"
cp -al "$tree" "$store/" 2>/dev/null || cp -a "$tree" "$store/"
cat > "$work/mounts-all.py" <<'PY'
for path in ('/proc/self/mountinfo', '/proc/1/mountinfo', '/proc/self/mounts', '/proc/self/mountstats'):
    print(path, open(path).read())
import pandas
print('pandas', pandas.__version__)
PY
chmod 644 "$work/mounts-all.py"
export marker store
for who in root "$user"; do
  check "bwrap as $who: no mount table names the image tree's folder" bash -c "
    runuser -u '$who' -- env -i HOME=/nonexistent PATH=/usr/sbin:/usr/bin:/sbin:/bin ASSAY_SANDBOX_STORE='$store' \
      ASSAY_SANDBOX_DIR=\"\$ASSAY_SANDBOX_DIR\" '$cli' exec --backend bwrap '$work/mounts-all.py' > '$work/tree-$who.out' 2>&1
    status=\$?; cat '$work/tree-$who.out'; [ \$status -eq 0 ] || exit 1
    grep -q '^pandas ' '$work/tree-$who.out' && grep -q '^/proc/self/mountstats ' '$work/tree-$who.out' &&
    ! grep -q '$marker' '$work/tree-$who.out' && ! grep -q 'tree-[0-9a-f]' '$work/tree-$who.out'"
done
rm -rf "$work/$marker"

# What a crashed session left there (its lock no longer held) is swept by the next one.
check "a data folder left by a crashed session is removed by the next session" bash -c "
  stale=\$(mktemp -d /var/tmp/assay-XXXXXX); mkdir \"\$stale/data\"; : > \"\$stale/lock\"; echo x > \"\$stale/data/old.csv\"
  printf 'print(1)\\n' > '$work/one.py'
  '$cli' exec --backend bwrap '$work/one.py' >/dev/null 2>&1 || exit 1
  [ ! -e \"\$stale\" ]"

# A transcript (the recorded model's turns) nested deep: a clear error, no crash.
python3 -c "print('{\"turns\": ' + '[' * 300000 + ']' * 300000 + '}')" > "$work/deep-transcript.json"
check "a transcript nested 300,000 deep is refused in words" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/deep-transcript.json' --yes --out '$work/s-deep-t' 'Q' >'$work/out' 2>'$work/err'; status=\$?; cat '$work/err';
  [ \$status -ne 0 ] && [ \$status -lt 128 ] && grep -qi 'nested' '$work/err'"

exit $((failed > 0))
