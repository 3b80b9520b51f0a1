#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The `assay-cli exec` contract, on both backends. Usage: test-cli-exec.sh ASSAY_CLI
set -uo pipefail
cli="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}

printf 'x = 20\nprint("hello")\n' > "$work/a.py"
printf 'import pandas as pd\ndf = pd.read_csv("/data/sales.csv")\nprint(x + len(df))\ndf.to_csv("/workspace/copy.csv", index=False)\n' > "$work/b.py"
printf 'raise ValueError("bad value")\n' > "$work/c.py"
printf 'region,amount\nnorth,1\nsouth,2\n' > "$work/sales.csv"

echo "1..10"
for backend in docker bwrap; do
  check "$backend: cells share state, artifacts land in --out" bash -c "
    '$cli' exec --backend $backend --json --data '$work/sales.csv' --out '$work/out-$backend' '$work/a.py' '$work/b.py' '$work/c.py' > '$work/$backend.jsonl' &&
    python3 - '$work/$backend.jsonl' '$work/out-$backend' <<'PY'
import json, os, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, lines
a, b, c = (json.loads(l) for l in lines)
for cell in (a, b, c):
    assert set(['status', 'outputs', 'artifacts', 'elapsed_ms']) <= set(cell), cell
    assert isinstance(cell['elapsed_ms'], int) and cell['elapsed_ms'] >= 0
assert a['status'] == 'ok' and a['outputs'][0] == {'output_type': 'stream', 'name': 'stdout', 'text': 'hello\n'}, a
assert b['status'] == 'ok', b
assert ''.join(o.get('text', '') for o in b['outputs']) == '22\n', b
art = b['artifacts']
assert len(art) == 1 and art[0]['name'] == 'copy.csv' and art[0]['mime'] == 'text/csv', art
assert os.path.dirname(art[0]['path']) == sys.argv[2] and os.path.getsize(art[0]['path']) == art[0]['bytes']
assert c['status'] == 'error' and c['reason'], c
err = [o for o in c['outputs'] if o['output_type'] == 'error'][0]
assert err['ename'] == 'ValueError' and err['evalue'] == 'bad value', err
PY"
  check "$backend: - reads a cell from stdin" bash -c "echo 'print(6 * 7)' | '$cli' exec --backend $backend --json - | grep -q '\"text\":\"42\\\\n\"'"
  check "$backend: --timeout interrupts" bash -c "echo 'import time; time.sleep(60)' | '$cli' exec --backend $backend --timeout 1 --json - | grep -q '\"status\":\"timeout\"'"
done
check "a missing cell file fails before any sandbox starts" bash -c "! '$cli' exec '$work/nope.py' 2>'$work/err' && grep -q nope.py '$work/err'"
check "an unknown backend is refused with a message" bash -c "! '$cli' exec --backend qemu '$work/a.py' 2>'$work/err' && grep -q 'unknown backend' '$work/err'"
check "an unreachable Docker daemon is reported, not hidden" bash -c "! DOCKER_HOST=unix:///nonexistent.sock '$cli' exec --backend docker '$work/a.py' 2>'$work/err' && grep -qi 'docker' '$work/err'"
check "sandbox status --json names both backends" bash -c "'$cli' sandbox status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s[\"docker\"][\"usable\"] and s[\"bwrap\"][\"usable\"], s'"
exit $((failed > 0))
