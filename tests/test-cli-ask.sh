#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The `assay-cli ask` and `assay-cli session` contract, with the recorded provider and a real
# sandbox (bubblewrap, for speed). Usage: test-cli-ask.sh ASSAY_CLI
set -uo pipefail
cli="$1"
work=$(mktemp -d)
cleanup () { [ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
ask () { "$cli" ask --backend bwrap --provider recorded "$@"; }
export cli; export -f ask

printf 'region,amount\nnorth,1\nsouth,2\n' > "$work/sales.csv"

# Two cells (the second saves a file) and a final answer.
cat > "$work/happy.json" <<'JSON'
{"format": "assay-transcript", "model": "recorded-demo", "turns": [
  {"text": "Let me load the file.", "tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\ntotal = int(df.amount.sum())\nprint('total', total)", "description": "sum the amounts"}}]},
  {"tool_calls": [{"id": "call_2", "name": "execute_python",
    "arguments": {"code": "df.to_csv('/workspace/summary.csv', index=False)\nprint('saved')", "description": "save"}}]},
  {"text": "The total amount is 3."}]}
JSON

# One step, then a cell that sleeps (killed in the middle), then an answer.
cat > "$work/slow.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "total = 21\nprint('first step done')"}}]},
  {"text": "Now the slow part.", "tool_calls": [{"id": "call_2", "name": "execute_python",
    "arguments": {"code": "import time\ntime.sleep(5)\nprint('slept')"}}]},
  {"text": "never reached"}]}
JSON

# What the resumed session is asked: it needs the state of the first step (total).
cat > "$work/resume.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_r", "name": "execute_python", "arguments": {"code": "print('double', total * 2)"}}]},
  {"text": "Twice the total is 42."}]}
JSON

cat > "$work/loop.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"name": "execute_python", "arguments": {"code": "print(1)"}}]},
  {"tool_calls": [{"name": "execute_python", "arguments": {"code": "print(2)"}}]},
  {"text": "never reached"}]}
JSON

printf '#!/bin/sh\nsed -i "s/total)/total * 100)/" "$1"\n' > "$work/editor.sh"
chmod +x "$work/editor.sh"

echo "1..21"

check "--yes: the answer on stdout, exit 0, the session folder in --out" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/happy.json' --data '$work/sales.csv' --yes --out '$work/s-happy' 'What is the total?' >'$work/out' 2>'$work/err' &&
  [ \"\$(cat '$work/out')\" = 'The total amount is 3.' ] &&
  grep -q 'recorded' '$work/err' && grep -q 'total 3' '$work/err' && grep -q 'step 2 of 8' '$work/err' &&
  [ -f '$work/s-happy/session.json' ] && [ -f '$work/s-happy/data/sales.csv' ] &&
  ls '$work/s-happy/artifacts' | grep -q summary"

check "where the code ran is in the record, in session show and in every export (bubblewrap and Docker)" bash -c "
  '$cli' ask --backend docker --provider recorded --transcript '$work/happy.json' --data '$work/sales.csv' --yes --out '$work/s-docker' 'What is the total?' >/dev/null 2>&1 &&
  python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))[\"sandbox\"]; d = json.load(open(sys.argv[2]))[\"sandbox\"]
assert b == {\"backend\": \"bwrap\", \"where\": \"bubblewrap on this machine\"}, b
assert d[\"backend\"] == \"docker\" and d[\"where\"].startswith(\"Docker \") and d[\"where\"].endswith(\" at /var/run/docker.sock\"), d
' '$work/s-happy/session.json' '$work/s-docker/session.json' &&
  '$cli' session show '$work/s-happy' | grep -q '^sandbox:  bubblewrap on this machine$' &&
  '$cli' session show '$work/s-docker' | grep -q '^sandbox:  Docker .* at /var/run/docker.sock$' &&
  '$cli' export '$work/s-docker' -o '$work/where.html' >/dev/null 2>&1 && grep -q 'The code ran in Docker .* at /var/run/docker.sock.' '$work/where.html' &&
  '$cli' export '$work/s-happy' -o '$work/where.ipynb' >/dev/null 2>&1 && grep -q 'The code ran in \`bubblewrap on this machine\`.' '$work/where.ipynb' &&
  '$cli' export '$work/s-happy' -o '$work/where.pdf' >/dev/null 2>&1 && pdftotext '$work/where.pdf' - | grep -q 'The code ran in bubblewrap on this machine.'"

check "--json: answer, status, steps, session_dir, cells with statuses and artifacts" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/happy.json' --data '$work/sales.csv' --yes --json --out '$work/s-json' 'What is the total?' >'$work/out' 2>/dev/null &&
  python3 - '$work/out' '$work/s-json' <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r['answer'] == 'The total amount is 3.', r
assert r['status'] == 'answered' and r['steps'] == 3, r
assert os.path.realpath(r['session_dir']) == os.path.realpath(sys.argv[2]), r
assert [c['status'] for c in r['cells']] == ['ok', 'ok'], r
art = r['cells'][1]['artifacts']
assert len(art) == 1 and art[0]['name'] == 'summary.csv' and os.path.isfile(art[0]['path']), art
PY"

check "approval on stdin: n REASON rejects, the reason is recorded and reaches the model" bash -c "
  printf 'n too slow\ny\n' | '$cli' ask --backend bwrap --provider recorded --transcript '$work/happy.json' --no-check-numbers --data '$work/sales.csv' --out '$work/s-reject' 'q' >'$work/out' 2>'$work/err' &&
  '$cli' session show --json '$work/s-reject' > '$work/show' &&
  python3 - '$work/show' <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
c = s['cells']
assert c[0]['decision'] == 'rejected' and c[0]['reason'] == 'too slow' and c[0]['status'] == 'rejected', c[0]
assert c[0]['code'] is None
assert c[1]['decision'] == 'approved', c[1]
tool = [m for m in s['messages'] if m['role'] == 'tool']
assert 'too slow' in tool[0]['text'] and tool[0]['is_error'], tool[0]
PY"

check "approval on stdin: e edits in \$EDITOR and the edited code runs" bash -c "
  printf 'e\ny\n' | EDITOR='$work/editor.sh' '$cli' ask --backend bwrap --provider recorded --transcript '$work/happy.json' --no-check-numbers --data '$work/sales.csv' --out '$work/s-edit' 'q' >/dev/null 2>'$work/err' &&
  grep -q 'total 300' '$work/err' &&
  '$cli' session show --json '$work/s-edit' | python3 -c '
import json, sys
s = json.load(sys.stdin)
c = s[\"cells\"][0]
assert c[\"decision\"] == \"edited\" and \"total * 100\" in c[\"code\"] and \"total * 100\" not in c[\"proposed_code\"], c
assert \"edited your code\" in [m for m in s[\"messages\"] if m[\"role\"] == \"tool\"][0][\"text\"]
'"

check "end of input at the approval prompt: nothing runs, exit 6, session saved" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/happy.json' --out '$work/s-eof' 'q' </dev/null >/dev/null 2>'$work/err'; code=\$?
  [ \$code -eq 6 ] && '$cli' session show --json '$work/s-eof' | grep -q '\"status\" : \"stopped\"'"

check "step limit: exit 4, the message says so, the results are kept" bash -c "
  ask --transcript '$work/loop.json' --yes --max-steps 2 --json --out '$work/s-limit' 'q' >'$work/out' 2>'$work/err'; code=\$?
  [ \$code -eq 4 ] && grep -q 'step limit' '$work/err' &&
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r[\"status\"]==\"step-limit\" and r[\"answer\"] is None and [c[\"status\"] for c in r[\"cells\"]]==[\"ok\",\"ok\"], r' '$work/out'"

check "a transcript that runs out is a model error: exit 3" bash -c "
  printf '{\"turns\": []}' > '$work/empty.json'
  ask --transcript '$work/empty.json' --yes --out '$work/s-empty' 'q' >/dev/null 2>'$work/err'; [ \$? -eq 3 ] && grep -q 'no more turns' '$work/err'"

check "usage errors exit 2; --help documents the exit codes; keys never come from flags" bash -c "
  '$cli' ask --provider recorded 2>/dev/null; [ \$? -eq 2 ] &&
  { '$cli' ask --bogus q 2>/dev/null; [ \$? -eq 2 ]; } &&
  { ask --transcript '$work/happy.json' --data '$work/nope.csv' q 2>/dev/null; [ \$? -eq 2 ]; } &&
  { ask --transcript '$work/happy.json' --out '$work/s-happy' q 2>/dev/null; [ \$? -eq 2 ]; } &&
  { '$cli' ask --api-key x q 2>/dev/null; [ \$? -eq 2 ]; } &&
  '$cli' ask --help | grep -q 'step limit' && '$cli' ask --help | grep -q 'OPENAI_API_KEY'"

# The crash test: SIGKILL while the second step's cell sleeps.
"$cli" ask --backend bwrap --provider recorded --transcript "$work/slow.json" --yes --out "$work/s-crash" 'slow question' >"$work/crash.out" 2>"$work/crash.err" &
pid=$!
for _ in $(seq 1 300); do grep -q 'cell c2 running' "$work/crash.err" 2>/dev/null && break; sleep 0.1; done
check "the CLI reached the second step's cell" grep -q 'cell c2 running' "$work/crash.err"
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=

check "after SIGKILL, session show restores everything up to the last finished step" bash -c "
  '$cli' session show --json '$work/s-crash' > '$work/show' &&
  python3 - '$work/show' <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s['format_version'] == 2
assert s['finished']['steps'] == 1, s['finished']
assert [c['id'] for c in s['cells']] == ['c1'] and s['cells'][0]['status'] == 'ok', s['cells']
assert [m['role'] for m in s['messages']] == ['user', 'assistant', 'tool'], s['messages']
assert s['messages'][0]['text'] == 'slow question'
assert 'first step done' in s['messages'][2]['text']
assert [c['id'] for c in s['interrupted_cells']] == ['c2'], s['interrupted_cells']
assert s['interrupted_cells'][0]['status'] == 'interrupted'
assert s['status'] == 'interrupted', s['status']
PY"

check "session show (text) lists the restored cells" bash -c "
  '$cli' session show '$work/s-crash' | grep -q 'cell c1 (step 1): ok'"

check "ask --resume rebuilds the kernel by replaying and continues" bash -c "
  ask --resume '$work/s-crash' --transcript '$work/resume.json' --yes 'And twice the total?' >'$work/out' 2>'$work/err' &&
  [ \"\$(cat '$work/out')\" = 'Twice the total is 42.' ] && grep -q 'double 42' '$work/err' && grep -q 'Restoring' '$work/err' &&
  '$cli' session show --json '$work/s-crash' | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"finished\"][\"steps\"] == 3 and s[\"status\"] == \"answered\", s[\"finished\"]
assert [c[\"id\"] for c in s[\"cells\"]] == [\"c1\", \"c3\"], s[\"cells\"]
assert [m[\"text\"] for m in s[\"messages\"] if m[\"role\"] == \"user\"] == [\"slow question\", \"And twice the total?\"]
'"

check "session list --json DIR lists the sessions there" bash -c "
  mkdir -p '$work/parent' && cp -r '$work/s-happy' '$work/s-limit' '$work/parent/' &&
  '$cli' session list --json '$work/parent' | python3 -c '
import json, sys
l = json.load(sys.stdin)
assert sorted(s[\"status\"] for s in l) == [\"answered\", \"step-limit\"], l
' && '$cli' session list '$work/parent' | grep -q 'What is the total'"

check "session rename and delete" bash -c "
  '$cli' session rename '$work/parent/s-happy' 'Renamed' && '$cli' session show '$work/parent/s-happy' | head -1 | grep -qx 'Renamed' &&
  '$cli' session delete '$work/parent/s-happy' && [ ! -e '$work/parent/s-happy' ] &&
  ! '$cli' session delete '$work' 2>/dev/null && [ -d '$work' ]"

# An answer with a number no cell printed: said on stderr after the answer, in --json with
# each number's place, and by `session show`.
cat > "$work/invented.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "print(475046.3)\nprint('share', 0.2398)"}}]},
  {"text": "Revenue was EUR 475,046 from 12,480 orders, **24.0%** of the plan (see `cell 1`)."}]}
JSON
check "provenance: traced numbers in --json, the untraced one on stderr and in session show" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/invented.json' --no-check-numbers --yes --json --out '$work/s-prov' 'Revenue?' >'$work/out' 2>'$work/err' &&
  grep -qx 'Not found in any output: 12,480' '$work/err' &&
  python3 - '$work/out' <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1]))
numbers = r['provenance']['numbers']
assert [n['text'] for n in numbers] == ['475,046', '12,480', '24.0%'], numbers
assert [n['found'] for n in numbers] == [True, False, True], numbers
assert numbers[0]['cell'] == 'c1' and numbers[0]['line'] == 1 and numbers[0]['line_text'] == '475046.3', numbers[0]
assert numbers[2]['line'] == 2 and numbers[2]['line_text'][numbers[2]['match_start']:numbers[2]['match_end']] == '0.2398', numbers[2]
answer = r['answer'].encode()
assert answer[numbers[1]['start']:numbers[1]['end']] == b'12,480', numbers[1]
PY
  '$cli' session show '$work/s-prov' | grep -qx 'Not found in any output: 12,480' &&
  '$cli' session show --json '$work/s-prov' | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"format_version\"] == 2 and len(s[\"provenance\"]) == 1, s.get(\"provenance\")
assert s[\"provenance\"][0][\"message\"] == len(s[\"messages\"]) - 1
'"

# The same answer goes back to the model once (the check is on by default): it counts the
# orders and corrects its answer. The draft stays in the record, marked by the request.
cat > "$work/checked.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "print(475046.3)\nprint('share', 0.2398)"}}]},
  {"text": "Revenue was EUR 475,046 from 12,480 orders, 24.0% of the plan."},
  {"tool_calls": [{"id": "call_2", "name": "execute_python", "arguments": {"code": "print('orders', 12408)"}}]},
  {"text": "Revenue was EUR 475,046 from 12,408 orders, 24.0% of the plan."}]}
JSON
check "provenance: an answer with an untraced number goes back to the model once, then is corrected" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/checked.json' --yes --json --out '$work/s-check' 'Revenue?' >'$work/out' 2>'$work/err' &&
  grep -q 'Not found in any output: 12,480 — the model is asked to check them.' '$work/err' &&
  ! grep -qx 'Not found in any output: 12,480' '$work/err' &&
  python3 - '$work/out' '$work/s-check/session.json' <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1]))
assert r['answer'] == 'Revenue was EUR 475,046 from 12,408 orders, 24.0% of the plan.', r['answer']
numbers = r['provenance']['numbers']
assert [n['found'] for n in numbers] == [True, True, True], numbers
assert numbers[1]['cell'] == 'c2' and numbers[1]['line_text'] == 'orders 12408', numbers[1]
s = json.load(open(sys.argv[2]))
checks = [m for m in s['messages'] if m.get('check')]
assert len(checks) == 1 and '12,480' in checks[0]['text'] and checks[0]['role'] == 'user', checks
assert len(s['provenance']) == 2, s['provenance']
PY
  '$cli' session show '$work/s-check' > '$work/show' &&
  [ \$(grep -c '^question:' '$work/show') -eq 1 ] && grep -q 'from 12,408 orders' '$work/show'"

# Provenance vouches only for what it can tell apart (issue 32): a number from the middle of
# an output the model read cut is not traced; one matched only among a thousand printed
# numbers is weak. Both go back to the model, each said for what it is.
cat > "$work/unread.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "for i in range(1000):\n    print(i)\nfor i in range(3000):\n    print('filler line', i * 7 + 100000)\nprint('hidden 987654')\nfor i in range(3000):\n    print('filler line', i * 7 + 200000)"}}]},
  {"text": "There were 500 failed orders and 987,654 in the middle."},
  {"text": "I cannot tell."}]}
JSON
check "provenance: a number the model never read and one among a thousand go back, each said for what it is" bash -c "
  '$cli' ask --backend bwrap --provider recorded --transcript '$work/unread.json' --yes --json --out '$work/s-unread' 'Failures?' >'$work/out' 2>'$work/err' &&
  python3 - '$work/s-unread/session.json' <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
checks = [m for m in s['messages'] if m.get('check')]
assert len(checks) == 1, checks
text = checks[0]['text']
assert '500, 987,654' in text and 'Of these, 500 match only among many numbers' in text, text
cell = s['cells'][0]
assert cell['model_read'] == 6000, cell.get('model_read')
first = s['provenance'][0]['numbers']
assert [n['found'] for n in first] == [False, False], first
assert first[0].get('weak') and first[0]['crowd'] >= 20 and first[0]['cell'] == 'c1', first[0]
assert not first[1].get('weak') and 'cell' not in first[1], first[1]
PY"

# The draft Assay sent back is no answer: the reports' body leaves it out (issue 32).
check "provenance: the draft sent back is not in the reports' body, the answer is, once" bash -c "
  '$cli' export '$work/s-check' -o '$work/check.html' && '$cli' export '$work/s-check' -o '$work/check.ipynb' &&
  '$cli' export '$work/s-check' -o '$work/check.pdf' && pdftotext '$work/check.pdf' '$work/check.txt' &&
  for f in check.html check.ipynb check.txt; do
    ! grep -q '12,480' \"$work/\$f\" && grep -q '12,408' \"$work/\$f\" || { echo \$f; exit 1; }
  done"

# Each dataset as it was added: rows, size and SHA-256 in session show; a copy changed since
# then is said to be, by session show (text and --json) and by ask --resume.
sales_sha=$(sha256sum "$work/sales.csv" | cut -d' ' -f1)
check "datasets: rows, size and SHA-256 recorded; a changed copy is reported" bash -c "
  '$cli' session show '$work/s-json' | grep -qF '2 rows, 30 bytes, SHA-256 $sales_sha' &&
  ! '$cli' session show '$work/s-json' | grep -q 'changed on disk' &&
  printf 'west,4\n' >> '$work/s-json/data/sales.csv' &&
  '$cli' session show '$work/s-json' | grep -q 'changed on disk since it was added' &&
  '$cli' session show --json '$work/s-json' | python3 -c 'import json, sys; d = json.load(sys.stdin)[\"datasets\"][0]; assert d[\"changed\"] and d[\"sha256\"] == \"$sales_sha\", d' &&
  { ask --transcript '$work/loop.json' --resume '$work/s-json' --yes --max-steps 1 q >/dev/null 2>'$work/err'; grep -q 'Warning: sales.csv changed on disk' '$work/err'; }"

# SIGINT in the middle of a cell: cancelled cleanly, saved, exit 6.
"$cli" ask --backend bwrap --provider recorded --transcript "$work/slow.json" --yes --out "$work/s-int" 'q' >/dev/null 2>"$work/int.err" &
pid=$!
for _ in $(seq 1 300); do grep -q 'cell c2 running' "$work/int.err" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"; wait "$pid"; code=$?; pid=
check "SIGINT cancels the cell, saves the session and exits 6" bash -c "
  [ $code -eq 6 ] && '$cli' session show --json '$work/s-int' | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"status\"] == \"cancelled\" and [c[\"status\"] for c in s[\"cells\"]] == [\"ok\", \"cancelled\"], s[\"cells\"]
'"

exit $((failed > 0))
