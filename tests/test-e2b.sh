#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# E2B as the place the cells run, against tests/e2b/fake_e2b_server.py: a local stand-in written
# from E2B's published API and SDK sources (it is not E2B; no E2B server is reachable here). The
# fake really runs the code, in bubblewrap on a sandbox tree of this machine, so the outputs are
# real. Usage: test-e2b.sh ASSAY_CLI SOURCE_DIR
set -uo pipefail
cli="$1"
source_dir="$2"
fake="$source_dir/tests/e2b/fake_e2b_server.py"
work=$(mktemp -d)
pids=()
cleanup () { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; grep -h -v "^  \|^Traceback\|^---\|^Exception\|Error: \[Errno 32\]" "$work"/*.log | tail -n 20 | sed 's/^/# fake: /'; failed=$((failed + 1)); fi
}

# The fake's sandboxes need Python with pandas and matplotlib: the sandbox tree Assay builds for
# bubblewrap (this worktree's, else any complete one of the machine's).
tree=$("$cli" sandbox status --json | python3 -c 'import json,sys; b=json.load(sys.stdin)["bwrap"]; print(b["tree"] if b["tree_present"] else "")')
if [ -z "$tree" ]; then
  for t in /var/lib/assay/sandbox/tree-* "${XDG_CACHE_HOME:-$HOME/.cache}"/assay/sandbox/tree-*; do
    [ -f "$t/.assay-complete" ] && tree="$t" && break
  done
fi
if [ -z "$tree" ]; then echo "1..0 # SKIP no sandbox tree (run assay-cli sandbox build --backend bwrap)"; exit 0; fi

key="e2b_test_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
start_fake () { # name, extra arguments...: exports nothing, writes $work/NAME.port
  local name="$1"; shift
  mkdir -p "$work/$name-state"
  python3 "$fake" --port-file "$work/$name.port" --state "$work/$name-state" --key "$key" --rootfs "$tree" "$@" \
    2>"$work/$name.log" &
  pids+=($!)
  for _ in $(seq 100); do [ -f "$work/$name.port" ] && return 0; sleep 0.1; done
  echo "the fake E2B $name did not start"; cat "$work/$name.log"; exit 1
}
start_fake main
start_fake limited --create-429 1
start_fake jammed --create-429 100
at () { # name: the environment that points Assay at that fake
  local port; port=$(cat "$work/$1.port")
  echo "E2B_API_KEY=$key E2B_API_URL=http://127.0.0.1:$port E2B_SANDBOX_URL=http://127.0.0.1:$port"
}
export cli work key

cat > "$work/a.py" <<'PY'
x = 20
print("hello", flush=True)
print("world")
PY
cat > "$work/b.py" <<'PY'
import pandas as pd
import matplotlib.pyplot as plt
df = pd.read_csv("/data/sales.csv")
print(x + len(df))
df.to_csv("/workspace/copy.csv", index=False)
plt.plot(df.amount)
df
PY
printf 'def f():\n    raise ValueError("bad value")\nf()\n' > "$work/c.py"
printf 'region,amount\nnorth,1\nsouth,2\n' > "$work/sales.csv"
printf 'print("x is", x)\n' > "$work/x.py"
printf 'import time\ntime.sleep(60)\n' > "$work/sleep.py"
printf 'import time\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        pass\n' > "$work/stubborn.py"
printf 'print("before", flush=True)\n# E2B_FAKE_CUT_STREAM\nprint("after")\n' > "$work/cut.py"
printf 'print("never")\n# E2B_FAKE_EXPIRE\n' > "$work/expire.py"
printf 'import os\nos._exit(1)\n' > "$work/die.py"
printf 'for i in range(30000):\n    print("x" * 1000)\n' > "$work/flood.py"

echo "1..17"

check "cells share state; stdout, an error with its traceback, a PNG, a table; the dataset read; the artifact fetched" bash -c "
  { env $(at main) '$cli' exec --backend e2b --json --data '$work/sales.csv' --out '$work/out' '$work/a.py' '$work/b.py' '$work/c.py' > '$work/exec.jsonl' 2>'$work/exec.err' || { cat '$work/exec.err'; exit 1; }; } &&
  python3 - '$work/exec.jsonl' '$work/out' <<'PY'
import base64, json, os, sys
a, b, c = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert a['status'] == 'ok' and ''.join(o['text'] for o in a['outputs']) == 'hello\nworld\n', a
assert a['execution_count'] == 1 and b['execution_count'] == 2, (a, b)
assert b['status'] == 'ok', b
assert [o['text'] for o in b['outputs'] if o['output_type'] == 'stream'] == ['22\n'], b
table = [o for o in b['outputs'] if o['output_type'] == 'execute_result']
assert len(table) == 1 and 'north' in table[0]['data']['text/plain'] and '<table' in table[0]['data']['text/html'], b
png = [o for o in b['outputs'] if o['output_type'] == 'display_data' and 'image/png' in o['data']]
assert len(png) == 1 and base64.b64decode(png[0]['data']['image/png'])[:8] == b'\x89PNG\r\n\x1a\n', b
art = b['artifacts']
assert len(art) == 1 and art[0]['name'] == 'copy.csv' and os.path.dirname(art[0]['path']) == sys.argv[2], art
assert open(art[0]['path']).read() == 'region,amount\nnorth,1\nsouth,2\n'
assert c['status'] == 'error' and c['reason'] == 'ValueError: bad value', c
err = [o for o in c['outputs'] if o['output_type'] == 'error'][0]
assert err['ename'] == 'ValueError' and err['evalue'] == 'bad value', err
assert any('in f' in line for line in err['traceback']) and err['traceback'][-1] == 'ValueError: bad value', err
PY"

check "the timeout interrupts the cell on E2B and keeps the state" bash -c "
  env $(at main) '$cli' exec --backend e2b --json --timeout 1 '$work/a.py' '$work/sleep.py' '$work/x.py' > '$work/t.jsonl' &&
  python3 - '$work/t.jsonl' <<'PY'
import json, sys
a, s, x = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert s['status'] == 'timeout' and not s.get('state_lost'), s
assert x['status'] == 'ok' and x['outputs'][0]['text'] == 'x is 20\n', x
PY"

check "a cell that ignores the interrupt: the sandbox is killed (DELETE), the state lost, a fresh sandbox next" bash -c "
  env $(at main) '$cli' exec --backend e2b --json --timeout 1 '$work/a.py' '$work/stubborn.py' '$work/x.py' > '$work/k.jsonl' &&
  python3 - '$work/k.jsonl' <<'PY'
import json, sys
a, s, x = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert s['status'] == 'timeout' and s['state_lost'] and 'killed' in s['reason'], s
assert x['status'] == 'error' and 'NameError' in x['reason'], x
PY
  curl -s 'http://127.0.0.1:$(cat "$work/main.port")/_fake/requests' | python3 -c '
import json, sys
deletes = [r for r in json.load(sys.stdin) if r[\"method\"] == \"DELETE\"]
assert deletes, \"no sandbox was ended\"'"

check "a flood of output is capped (limit), the cell stopped on E2B, the state kept" bash -c "
  env $(at main) '$cli' exec --backend e2b --json '$work/a.py' '$work/flood.py' '$work/x.py' > '$work/f.jsonl' &&
  python3 - '$work/f.jsonl' <<'PY'
import json, sys
a, f, x = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert f['status'] == 'limit' and 'printed more than' in f['reason'], f['status']
assert sum(len(o.get('text', '')) for o in f['outputs']) < 17 * 1024 * 1024
assert x['status'] == 'ok' and x['outputs'][0]['text'] == 'x is 20\\n', x
PY"

check "a stream cut mid-cell: what arrived is kept, the cell fails plainly, the session goes on" bash -c "
  env $(at main) '$cli' exec --backend e2b --json '$work/a.py' '$work/cut.py' '$work/x.py' > '$work/c.jsonl' &&
  python3 - '$work/c.jsonl' <<'PY'
import json, sys
a, c, x = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert c['status'] == 'error' and 'broke off' in c['reason'] and 'before the cell finished' in c['reason'], c
assert [o['text'] for o in c['outputs']] == ['before'], c
assert x['status'] == 'ok' and x['outputs'][0]['text'] == 'x is 20\n', x
PY"

check "an expired sandbox mid-session is reported plainly, and the next cell gets a new one" bash -c "
  env $(at main) '$cli' exec --backend e2b --json '$work/a.py' '$work/expire.py' '$work/x.py' > '$work/e.jsonl' &&
  python3 - '$work/e.jsonl' <<'PY'
import json, sys
a, e, x = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert e['status'] == 'crashed' and e['state_lost'], e
assert 'is gone (it expired' in e['reason'] and 'E2B sandbox' in e['reason'], e
assert x['status'] == 'error' and 'NameError' in x['reason'], x
PY"

check "the kernel dies mid-cell (E2B restarts it: ContextRestarting): the state is lost, said plainly" bash -c "
  env $(at main) '$cli' exec --backend e2b --json '$work/a.py' '$work/die.py' '$work/x.py' > '$work/d.jsonl' &&
  python3 - '$work/d.jsonl' <<'PY'
import json, sys
a, d, x = (json.loads(l) for l in open(sys.argv[1]).read().splitlines())
assert d['status'] == 'crashed' and d['state_lost'] and 'died during the cell' in d['reason'], d
assert x['status'] == 'error' and 'NameError' in x['reason'], x
PY"

check "429 on create: Retry-After is waited out and the sandbox starts" bash -c "
  env $(at limited) '$cli' exec --backend e2b --json '$work/a.py' > '$work/r.jsonl' &&
  grep -q '\"status\":\"ok\"' '$work/r.jsonl' &&
  curl -s 'http://127.0.0.1:$(cat "$work/limited.port")/_fake/requests' | python3 -c '
import json, sys
creates = [r for r in json.load(sys.stdin) if r[\"method\"] == \"POST\" and r[\"path\"] == \"/sandboxes\"]
assert len(creates) == 2, creates'"

check "429 that does not pass: refused with the reason, no cell run" bash -c "
  ! env $(at jammed) '$cli' exec --backend e2b --json '$work/a.py' > '$work/j.jsonl' 2>'$work/j.err';
  grep -q 'rate limit' '$work/j.err' '$work/j.jsonl' && ! grep -q '\"status\":\"ok\"' '$work/j.jsonl'"

check "no key, a wrong one, an E2B that does not answer (E2B_DOMAIN): not usable, and says why" bash -c "
  ! env -u E2B_API_KEY '$cli' exec --backend e2b '$work/a.py' 2>'$work/nokey' && grep -q 'E2B_API_KEY' '$work/nokey' &&
  ! env $(at main) E2B_API_KEY=e2b_wrong '$cli' exec --backend e2b '$work/a.py' 2>'$work/badkey' && grep -q 'refused' '$work/badkey' &&
  env $(at main) '$cli' sandbox status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)[\"e2b\"]
assert s[\"usable\"] and \"127.0.0.1\" in s[\"where\"], s' &&
  env -u E2B_API_KEY '$cli' sandbox status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert not s[\"e2b\"][\"usable\"] and \"E2B_API_KEY\" in s[\"e2b\"][\"reason\"] and s[\"backend\"] != \"e2b\", s' &&
  env E2B_DOMAIN=e2b.invalid E2B_API_KEY=x '$cli' sandbox status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)[\"e2b\"]
assert \"https://api.e2b.invalid\" in s[\"where\"] and not s[\"usable\"] and \"api.e2b.invalid\" in s[\"reason\"], s'"

check "a run that crashed left its sandbox on E2B: the next run ends it (its owner's process is gone)" bash -c "
  env $(at main) '$cli' exec --backend e2b --json '$work/sleep.py' > /dev/null 2>&1 &
  crashed=\$!
  for _ in \$(seq 300); do
    [ \"\$(curl -s -H 'X-API-Key: $key' 'http://127.0.0.1:$(cat "$work/main.port")/sandboxes' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')\" = 1 ] && break
    sleep 0.1
  done
  left=\$(curl -s -H 'X-API-Key: $key' 'http://127.0.0.1:$(cat "$work/main.port")/sandboxes' | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s[0][\"metadata\"][\"assay.owner\"]; print(s[0][\"sandboxID\"])') &&
  kill -9 \$crashed && wait \$crashed 2>/dev/null
  env $(at main) '$cli' exec --backend e2b --json '$work/a.py' > /dev/null &&
  curl -s 'http://127.0.0.1:$(cat "$work/main.port")/_fake/requests' | python3 -c '
import json, sys
assert any(r[\"method\"] == \"DELETE\" and r[\"path\"] == \"/sandboxes/\" + sys.argv[1] for r in json.load(sys.stdin)), sys.argv[1]' \"\$left\" &&
  [ \"\$(curl -s -H 'X-API-Key: $key' 'http://127.0.0.1:$(cat "$work/main.port")/sandboxes')\" = '[]' ]"

cat > "$work/happy.json" <<'JSON'
{"format": "assay-transcript", "model": "recorded-demo", "turns": [
  {"text": "Let me load the file.", "tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\ntotal = int(df.amount.sum())\nprint('total', total)", "description": "sum the amounts"}}]},
  {"tool_calls": [{"id": "call_2", "name": "execute_python",
    "arguments": {"code": "df.to_csv('/workspace/summary.csv', index=False)\nprint('saved', total)", "description": "save"}}]},
  {"text": "The total amount is 3."}]}
JSON

check "ask --backend e2b: a question answered end to end, the artifact in the session, the session says where its code ran" bash -c "
  env $(at main) '$cli' ask --backend e2b --provider recorded --transcript '$work/happy.json' --data '$work/sales.csv' --yes --json --out '$work/s-ask' 'What is the total?' >'$work/ask.json' 2>'$work/ask.err' &&
  python3 - '$work/ask.json' <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r['answer'] == 'The total amount is 3.' and r['status'] == 'answered', r
assert [c['status'] for c in r['cells']] == ['ok', 'ok'], r
art = r['cells'][1]['artifacts']
assert len(art) == 1 and art[0]['name'] == 'summary.csv' and os.path.isfile(art[0]['path']), art
PY
  grep -q 'total 3' '$work/ask.err' && grep -q 'saved 3' '$work/ask.err' &&
  python3 - '$work/s-ask/session.json' <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['sandbox']
assert s['backend'] == 'e2b' and s['where'].startswith('E2B (template code-interpreter-v1 at http://127.0.0.1:'), s
PY"

# Pause and resume: a session's E2B sandbox is paused when ask ends, and ask --resume resumes it
# with its kernel's state (a value no replay could make again: a random stamp).
cat > "$work/stamp1.json" <<'JSON'
{"format": "assay-transcript", "model": "recorded-demo", "turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "import secrets\nstamp = secrets.token_hex(8)\nprint('stamp', stamp)", "description": "a stamp"}}]},
  {"text": "Stamped."}]}
JSON
cat > "$work/stamp2.json" <<'JSON'
{"format": "assay-transcript", "model": "recorded-demo", "turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "print('again', stamp)", "description": "the stamp again"}}]},
  {"text": "Same stamp."}]}
JSON
api="http://127.0.0.1:$(cat "$work/main.port")"
export api

check "ask on E2B pauses its sandbox at the end (no DELETE) and the session records the sandbox's id" bash -c "
  env $(at main) '$cli' ask --backend e2b --provider recorded --transcript '$work/stamp1.json' --yes --json --out '$work/s-pause' 'Stamp it' >'$work/p1.json' 2>'$work/p1.err' || { cat '$work/p1.err'; exit 1; }
  id=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"sandbox\"][\"resume_id\"])' '$work/s-pause/session.json') &&
  curl -s -H 'X-API-Key: $key' \"\$api/sandboxes/\$id\" | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s[\"state\"] == \"paused\", s' &&
  curl -s \"\$api/_fake/requests\" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert any(x[\"method\"] == \"POST\" and x[\"path\"] == \"/sandboxes/\" + sys.argv[1] + \"/pause\" for x in r), sys.argv[1]
assert not any(x[\"method\"] == \"DELETE\" and x[\"path\"] == \"/sandboxes/\" + sys.argv[1] for x in r), sys.argv[1]' \"\$id\""

check "ask --resume resumes the paused sandbox (/connect): a variable defined before is there, no cell replayed" bash -c "
  id=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"sandbox\"][\"resume_id\"])' '$work/s-pause/session.json') &&
  stamp=\$(grep -o 'stamp [0-9a-f]\{16\}' '$work/p1.err' | head -n1 | cut -d' ' -f2) && [ -n \"\$stamp\" ] &&
  creates=\$(curl -s \"\$api/_fake/requests\" | python3 -c 'import json,sys; print(sum(x[\"method\"] == \"POST\" and x[\"path\"] == \"/sandboxes\" for x in json.load(sys.stdin)))') &&
  env $(at main) '$cli' ask --backend e2b --provider recorded --transcript '$work/stamp2.json' --yes --json --resume '$work/s-pause' 'Again' >'$work/p2.json' 2>'$work/p2.err' || { cat '$work/p2.err'; exit 1; }
  grep -q \"again \$stamp\" '$work/p2.err' || { echo \"the stamp \$stamp did not survive\"; cat '$work/p2.err'; exit 1; }
  ! grep -qi 'restor\|could not be resumed' '$work/p2.err' &&
  curl -s \"\$api/_fake/requests\" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert any(x[\"method\"] == \"POST\" and x[\"path\"] == \"/sandboxes/\" + sys.argv[1] + \"/connect\" for x in r), sys.argv[1]
assert sum(x[\"method\"] == \"POST\" and x[\"path\"] == \"/sandboxes\" for x in r) == int(sys.argv[2]), \"a new sandbox was made\"' \"\$id\" \"\$creates\" &&
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))[\"sandbox\"]; assert s[\"resume_id\"] == sys.argv[2], s' '$work/s-pause/session.json' \"\$id\""

check "resuming a sandbox E2B forgot: a new one, the analyst told why, the cells replayed" bash -c "
  old=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"sandbox\"][\"resume_id\"])' '$work/s-pause/session.json') &&
  curl -s -X POST \"\$api/_fake/forget\" | grep -q \"\$old\" &&
  env $(at main) '$cli' ask --backend e2b --provider recorded --transcript '$work/stamp2.json' --yes --json --resume '$work/s-pause' 'Again' >'$work/p3.json' 2>'$work/p3.err' || { cat '$work/p3.err'; exit 1; }
  grep -q 'could not be resumed' '$work/p3.err' && grep -q 'run again to restore' '$work/p3.err' &&
  grep -q 'again [0-9a-f]\{16\}' '$work/p3.err' &&
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r[\"status\"] == \"answered\" and r[\"cells\"][-1][\"status\"] == \"ok\", r
s = json.load(open(sys.argv[2]))[\"sandbox\"]
assert s[\"resume_id\"] and s[\"resume_id\"] != sys.argv[3], s' '$work/p3.json' '$work/s-pause/session.json' \"\$old\""

check "the key is in no output, log or session file" bash -c "
  for f in '$work/s-ask/session.json' '$work/out/c2-copy.csv' '$work/exec.jsonl' '$work/exec.err' '$work/ask.json' '$work/ask.err' '$work/badkey'; do
    [ -e \"\$f\" ] || { echo \"missing \$f\"; exit 1; }
  done
  grep -r -a -l -F '$key' '$work/s-ask' '$work/s-pause' '$work'/p*.err '$work'/p*.json '$work/out' '$work'/*.jsonl '$work'/*.err '$work/ask.json' '$work/nokey' '$work/badkey'
  [ \$? -eq 1 ]"

check "the fake saw E2B's headers: X-API-Key on the API, E2b-Sandbox-Id and X-Access-Token on the sandbox" bash -c "
  curl -s 'http://127.0.0.1:$(cat "$work/main.port")/_fake/requests' | python3 -c '
import json, sys
r = json.load(sys.stdin)
api = [x for x in r if x[\"path\"].startswith(\"/sandboxes\")]
box = [x for x in r if x[\"path\"].startswith((\"/execute\", \"/files\", \"/filesystem.\"))]
assert api and all(\"X-Api-Key\" in x[\"headers\"] or \"X-API-Key\" in x[\"headers\"] for x in api), api
assert box and all(\"E2b-Sandbox-Id\" in x[\"headers\"] and \"X-Access-Token\" in x[\"headers\"] for x in box), box
assert any(x[\"path\"].startswith(\"/files?path=/data/sales.csv\") for x in box), box
assert any(x[\"path\"].startswith(\"/filesystem.Filesystem/ListDir\") for x in box), box'"

exit $((failed > 0))
