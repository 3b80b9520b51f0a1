#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `assay-cli rerun`: a session's approved cells again on new data, no model (bubblewrap, the
# recorded provider for the original session). Usage: test-rerun.sh ASSAY_CLI SOURCE_DIR
set -uo pipefail
cli="$1"
src="$2"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
PY=/usr/bin/python3
export cli work PY

mkdir -p "$work/old" "$work/new" "$work/renamed" "$work/big"
printf 'region,amount\nnorth,1\nsouth,2\n' > "$work/old/sales.csv"
printf 'region,amount\nnorth,10\nsouth,25\neast,5\n' > "$work/new/sales.csv"
printf 'region,value\nnorth,10\nsouth,25\n' > "$work/renamed/sales.csv"
printf 'region,amount\na,1\nb,1\nc,1\nd,1\ne,1\nf,1\n' > "$work/big/sales.csv"
cat > "$work/small.json" <<'JSON'
{"turns": [
  {"text": "Summing.", "tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\nassert len(df) < 5, 'too many regions'\nprint('total', df.amount.sum())\nprint('share', df.amount.max() / df.amount.sum())", "description": "sum"}}]},
  {"text": "The total amount is 3, and the largest region has 66.7% of it."}]}
JSON
"$cli" ask --backend bwrap --provider recorded --transcript "$work/small.json" --data "$work/old/sales.csv" \
  --mask sales.csv:region --yes --out "$work/s-old" q >/dev/null 2>&1

echo "1..12"

check "the answer's numbers are re-read in the new outputs; both sessions linked" bash -c "
  '$cli' rerun '$work/s-old' --backend bwrap --data sales.csv='$work/new/sales.csv' --out '$work/s-new' --report '$work/s-new.xlsx' --json >'$work/out' 2>'$work/err' &&
  grep -q 'Report: $work/s-new.xlsx' '$work/err' &&
  '$cli' session show '$work/s-new' >'$work/show' && grep -q '^run again of: q ($work/s-old)' '$work/show' &&
  grep -q '^  1   66.7%  *62.5%  *−4.2%' '$work/show' &&
  '$cli' session show '$work/s-old' | grep -q '^run again in: .*s-new' &&
  '$PY' - '$work/out' '$work/s-old/session.json' '$work/s-new/session.json' <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
old, new = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert r['cells'] == 1 and r['failed_cell'] is None, r
ch = [(c['before_text'], c['after_text'], c['stale']) for c in r['changes']]
assert ch == [('3', '40', False), ('66.7%', '62.5%', False)], ch
assert new['answer'] == 'The total amount is 40, and the largest region has 62.5% of it.', new['answer']
assert all(n['found'] for n in new['provenance'][0]['numbers']), new['provenance']
assert os.path.samefile(new['rerun_of'], os.path.dirname(sys.argv[2])), new['rerun_of']
assert [os.path.realpath(d) for d in old['reruns']] == [os.path.realpath(os.path.dirname(sys.argv[3]))], old['reruns']
assert new['title'].startswith('q — run again on '), new['title']
assert new['datasets'][0]['name'] == 'sales.csv' and new['datasets'][0]['rows'] == 3, new['datasets']
# What the model may see is kept with the run.
assert new['privacy'] == {'mode': 'masked', 'masked': [{'dataset': 'sales.csv', 'column': 'region'}]}, new['privacy']
# --report: the new session's workbook, its summary saying what changed, numbers as numbers.
import openpyxl
book = openpyxl.load_workbook(os.path.dirname(sys.argv[3]) + '.xlsx')
cells = [c.value for row in book['Summary'].iter_rows() for c in row]
assert 'What Changed' in cells and 40 in cells and 3 in cells, cells
PY"

check "a missing column stops the run with exit 7 and names it" bash -c "
  '$cli' rerun '$work/s-old' --backend bwrap --data sales.csv='$work/renamed/sales.csv' --out '$work/s-renamed' 2>'$work/err'; code=\$?
  [ \$code -eq 7 ] && grep -q 'missing column: amount' '$work/err' && grep -q 'new column (not used): value' '$work/err' &&
  [ ! -e '$work/s-renamed' ]"

check "a cell that fails on the new data: exit 8, the cell named, what ran kept" bash -c "
  '$cli' rerun '$work/s-old' --backend bwrap --data sales.csv='$work/big/sales.csv' --out '$work/s-big' --json >'$work/out' 2>'$work/err'; code=\$?
  [ \$code -eq 8 ] && grep -q 'Cell c1 failed on the new data' '$work/err' &&
  '$PY' -c 'import json, sys; r = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert r[\"failed_cell\"] == \"c1\", r
assert [c[\"status\"] for c in s[\"cells\"]] == [\"error\"], s[\"cells\"]' '$work/out' '$work/s-big/session.json'"

check "usage: no session, a bad --data, a dataset left without a file" bash -c "
  { '$cli' rerun 2>/dev/null; [ \$? -eq 2 ]; } &&
  { '$cli' rerun '$work/s-old' --data nonsense 2>/dev/null; [ \$? -eq 2 ]; } &&
  { '$cli' rerun '$work/s-old' --backend bwrap --data other.csv='$work/new/sales.csv' --out '$work/s-x' 2>/dev/null; [ \$? -eq 2 ]; } &&
  '$cli' rerun --help | grep -q 'a cell failed on the new data'"

# A Windows-1251 file with ";" and decimal commas against a UTF-8 "," original: converted into
# the old format, and the approved code reads it unchanged.
mkdir -p "$work/utf8" "$work/cp1251"
printf 'регион,сумма\nсевер,1.5\nюг,2.0\n' > "$work/utf8/sales.csv"
printf 'регион;сумма\r\nсевер;10,5\r\nюг;"2,0"\r\nзапад;1 000,0\r\n' | iconv -f UTF-8 -t WINDOWS-1251 > "$work/cp1251/sales.csv"
cat > "$work/ru.json" <<'JSON'
{"turns": [
  {"text": "Summing.", "tool_calls": [{"id": "call_1", "name": "execute_python",
    "arguments": {"code": "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\nprint('regions', ','.join(df['регион']))\nprint('total', df['сумма'].sum())", "description": "sum"}}]},
  {"text": "The total is 3.5."}]}
JSON
"$cli" ask --backend bwrap --provider recorded --transcript "$work/ru.json" --data "$work/utf8/sales.csv" \
  --yes --no-check-numbers --out "$work/s-utf8" q >/dev/null 2>&1
check "another dialect (Windows-1251, ';', decimal commas) is converted to the old one and runs" bash -c "
  '$cli' rerun '$work/s-utf8' --backend bwrap --data sales.csv='$work/cp1251/sales.csv' --out '$work/s-cp' --json >'$work/out' 2>'$work/err' &&
  grep -q 'converted to the old file.s format: the encoding is windows-1251, not utf-8' '$work/err' &&
  '$PY' - '$work/out' '$work/s-cp' <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2] + '/session.json'))
assert r['failed_cell'] is None and r['cells'] == 1, r
assert r['datasets'][0]['converted'] is True, r['datasets']
assert [(c['before_text'], c['after_text'], c['change']) for c in r['changes']] == [('3.5', '1012.5', '+1009.0')], r['changes']
assert len(r['notes']) == 1 and 'sales.csv was converted from windows-1251' in r['notes'][0], r['notes']
assert s['rerun_notes'] == r['notes'] and len(s['changes']) == 1, s
out = ''.join(o.get('text', '') for o in s['cells'][0]['outputs'])
assert 'regions север,юг,запад' in out and 'total 1012.5' in out, out
# The copy in the session is the converted file: UTF-8, ",", decimal points.
data = open(sys.argv[2] + '/' + s['datasets'][0]['path'], encoding='utf-8').read()
assert data == 'регион,сумма\nсевер,10.5\nюг,2.0\nзапад,1000.0\n', repr(data)
PY"

# The reference sales case, run again on the next quarter: every number of the answer is
# found again by its label, and the revenue matches what pandas computes from the new file
# itself; the numbers of July, August and September (no such months in Q4) are stale.
mkdir -p "$work/q3" "$work/q4"
"$PY" "$src/../data/demo/make_sales_csv.py" "$work/q3/sales.csv" >/dev/null
"$PY" "$src/../data/demo/make_sales_csv.py" "$work/q4/sales.csv" q4 >/dev/null
"$cli" ask --backend bwrap --provider recorded --transcript "$src/../data/demo/sales-transcript.json" \
  --data "$work/q3/sales.csv" --yes --out "$work/s-q3" "Analyse Q3 sales" >/dev/null 2>&1
cat > "$work/revenue.py" <<'PYCELL'
import pandas as pd
df = pd.read_csv('/data/sales.csv', dtype=str)
df = df.drop_duplicates()
df = df[df['date'].notna() & df['stage'].notna()]
paid = pd.to_numeric(df.loc[df['stage'] == 'purchase', 'amount'].str.replace(r'\s+', '', regex=True), errors='coerce')
print(f"{paid.sum():.2f}")
PYCELL
check "the sales case on the next quarter: every number found again by its label but Q3's months, revenue as pandas computes it" bash -c "
  '$cli' rerun '$work/s-q3' --backend bwrap --data sales.csv='$work/q4/sales.csv' --out '$work/s-q4' --json >'$work/out' 2>'$work/err' &&
  '$cli' exec --backend bwrap --data '$work/q4/sales.csv' '$work/revenue.py' >'$work/revenue' 2>/dev/null &&
  '$PY' - '$work/out' '$work/revenue' '$work/s-q3/session.json' <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
revenue = float(open(sys.argv[2]).read().split()[0])
origin = json.load(open(sys.argv[3]))
assert r['failed_cell'] is None and r['cells'] == 6, r
months = ('July', 'August', 'September')
assert len(r['changes']) >= 40 and all(c['label'] for c in r['changes']), r['changes']
of_a_month = [c for c in r['changes'] if c['label'].split(' · ')[0] in months]
assert len(of_a_month) == 9 and all(c['stale'] for c in of_a_month), of_a_month
# Besides Q3's months, only what the origin could not tell apart is stale: a value printed
# under two labels that the answer does not name (the first product's share and running
# share are both 24.4 %).
ambiguous = {n['text'] for p in origin['provenance'] for n in p['numbers'] if n.get('ambiguous')}
assert ambiguous == {'24.4%'}, ambiguous
others = [c for c in r['changes'] if c['stale'] and c not in of_a_month]
assert [c['before_text'] for c in others] == ['24.4%'], others
rev = [c for c in r['changes'] if c['before_text'] == '1,651,593.25']
assert len(rev) == 1 and abs(rev[0]['after'] - revenue) < 0.005, (rev, revenue)
assert rev[0]['after_text'] == '{:,.2f}'.format(revenue), rev
PY"

# --repair: the model fixes only the failed cell (approved on stdin), the run goes on, and the
# answer's numbers are read in the fixed cell.
cat > "$work/repair.json" <<'JSON'
{"turns": [
  {"text": "The new file has more regions than the assertion allowed.", "tool_calls": [{"id": "call_r1", "name": "execute_python",
    "arguments": {"code": "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\nprint('total', df.amount.sum())\nprint('share', df.amount.max() / df.amount.sum())", "description": "sum, without the limit on regions"}}]},
  {"text": "I removed the assertion that there are fewer than five regions."}]}
JSON
check "--repair: the model fixes the failed cell (approved), the run goes on, the numbers are read in the fix" bash -c "
  echo y | '$cli' rerun '$work/s-old' --backend bwrap --data sales.csv='$work/big/sales.csv' --out '$work/s-rep' --repair \
    --provider recorded --transcript '$work/repair.json' --json >'$work/out-rep' 2>'$work/err' &&
  grep -q 'asking the model to repair it' '$work/err' && grep -q 'Run cell c2?' '$work/err' &&
  '$PY' - '$work/out-rep' '$work/s-rep/session.json' <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
assert r['failed_cell'] is None and r['repaired'] == ['c2'], r
assert [(c['before_text'], c['after_text']) for c in r['changes']] == [('3', '6'), ('66.7%', '16.7%')], r['changes']
assert s['answer'] == 'The total amount is 6, and the largest region has 16.7% of it.', s['answer']
assert [(c['id'], c['status']) for c in s['cells']] == [('c1', 'error'), ('c2', 'ok')], s['cells']
repair = [m for m in s['messages'] if m.get('repair')]
assert len(repair) == 1 and 'Cell c1' in repair[0]['text'] and 'failed on the new data' in repair[0]['text'], repair
# Still one question (the repair is no question); the note says what the model changed.
assert sum(1 for m in s['messages'] if m['role'] == 'user') == 2, s['messages']
assert any('repaired it as cell c2' in n and 'removed the assertion' in n for n in s['rerun_notes']), s['rerun_notes']
PY" 

check "--repair without an answer at the prompt: the repair stops, exit 8" bash -c "
  '$cli' rerun '$work/s-old' --backend bwrap --data sales.csv='$work/big/sales.csv' --out '$work/s-rep2' --repair \
    --provider recorded --transcript '$work/repair.json' </dev/null >'$work/out-rep2' 2>'$work/err'; code=\$?
  [ \$code -eq 8 ] && grep -q 'the repair did not fix it' '$work/err'"

# --rewrite: one request to a real HTTP server speaking OpenAI's wire format: the conversation
# with the new outputs, masked, no tool; the rewrite kept beside the updated answer and shown as
# a diff.
cat > "$work/rewrite-script.json" <<'JSON'
{"responses": [{"flavor": "openai", "turn": {"text": "Across the three regions the amounts add up to 40; the largest region holds 62.5% of it.", "finish": "stop", "usage": {"input": 900, "output": 30}}}]}
JSON
"$PY" "$src/llm/fake_llm_server.py" "$work/rewrite-script.json" "$work/rewrite-requests.jsonl" >"$work/server.port" 2>/dev/null &
server=$!
for _ in $(seq 1 100); do [ -s "$work/server.port" ] && break; sleep 0.1; done
port=$(head -1 "$work/server.port")
check "--rewrite: one request (no tool, masked, the new outputs), the rewrite kept and shown as a diff" bash -c "
  ASSAY_API_KEY=sk-test '$cli' rerun '$work/s-old' --backend bwrap --data sales.csv='$work/new/sales.csv' --out '$work/s-rw' \
    --rewrite --provider openai --base-url http://127.0.0.1:$port/v1 --model gpt-4o --json >'$work/out-rw' 2>'$work/err' &&
  grep -q '+Across the three regions' '$work/err' && grep -q -- '-The total amount is 40' '$work/err' &&
  '$PY' - '$work/out-rw' '$work/s-rw/session.json' '$work/rewrite-requests.jsonl' <<'PY'
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
requests = [json.loads(l) for l in open(sys.argv[3])]
assert r['rewrite'] == s['rewrite'] == 'Across the three regions the amounts add up to 40; the largest region holds 62.5% of it.', r
# The answer stays the one updated number by number.
assert s['answer'] == 'The total amount is 40, and the largest region has 62.5% of it.', s['answer']
assert len(requests) == 1, len(requests)
body = requests[0]['body'] if isinstance(requests[0]['body'], dict) else json.loads(requests[0]['body'])
assert 'tools' not in body, body.keys()
sent = json.dumps(body, ensure_ascii=False)
assert 'total 40' in sent and 'The total amount is 40' in sent, sent[:2000]
# The masked column's values never leave: the new file's regions are placeholders.
assert 'north' not in sent and 'south' not in sent and 'east' not in sent and '⟨region' in sent, sent
# What was sent is in the new session's record, byte for byte.
assert len(s['requests']) == 1 and s['requests'][0]['sha256'] == requests[0]['body_sha256'], s['requests']
PY"
kill $server 2>/dev/null; wait $server 2>/dev/null

# The reports of the new session lead with "What changed": every traced number, before and after.
check "the reports (HTML, notebook, PDF) of a session run again say what changed" bash -c "
  '$cli' export '$work/s-q4' -o '$work/q4.html' && '$cli' export '$work/s-q4' -o '$work/q4.ipynb' &&
  '$cli' export '$work/s-q4' -o '$work/q4.pdf' && pdftotext -layout '$work/q4.pdf' '$work/q4.txt' &&
  '$PY' - '$work/out' '$work/q4.html' '$work/q4.ipynb' '$work/q4.txt' <<'PY'
import html, json, re, sys
r = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
nb = json.load(open(sys.argv[3]))
pdf = open(sys.argv[4]).read()
rev = [c for c in r['changes'] if c['before_text'] == '1,651,593.25'][0]
# HTML: one row per change, in a table of its own, before the first question.
table = page[page.index('<table class=\"changes\">'):]
table = table[:table.index('</table>')]
rows = re.findall(r'<tr class=\"(\w+)\">(.*?)</tr>', table)
assert len(rows) == len(r['changes']), (len(rows), len(r['changes']))
assert page.index('id=\"changes\"') < page.index('id=\"q1\"')
cells = [html.unescape(re.sub('<[^>]+>', '', c)) for c in re.findall(r'<td[^>]*>(.*?)</td>', dict((i, row) for i, (k, row) in enumerate(rows))[r['changes'].index(rev)])]
assert cells[1:6] == [rev['label'], rev['before_text'], rev['after_text'], rev['change'], rev['change_percent']], (cells, rev)
assert 'run again on new data' in page and 'Analyse Q3 sales' in page
# The notebook: a Markdown table after the introduction.
md = [''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown']
changes = [m for m in md if m.startswith('## What Changed')]
assert len(changes) == 1 and changes[0].count('\n|') == len(r['changes']) + 2, changes
assert '| **' + rev['after_text'] + '** |' in changes[0] and '| 5 | 5 |' in changes[0], changes[0]
assert not any('−+' in c['change'] or '+−' in c['change'] for c in r['changes']), [c['change'] for c in r['changes']]
# The PDF: the section and the revenue's row.
assert 'What Changed' in pdf, pdf[:2000]
line = [l for l in pdf.splitlines() if rev['before_text'] in l and rev['after_text'] in l]
assert line and rev['change'] in line[0], line
PY"

# Approved code cannot be changed behind the analyst's back (issue 33): an approved cell's code
# edited in session.json is refused by rerun (exit 10, the cell named, nothing run) and by
# ask --resume, until `session approve` shows it and the analyst approves it again.
cp -r "$work/s-old" "$work/s-edited"
printf '{"turns": [{"text": "Done."}]}' >"$work/done.json"
"$PY" - "$work/s-edited/session.json" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
record["cells"][0]["code"] += "\nprint('not approved')\n"
json.dump(record, open(sys.argv[1], "w"))
PY
check "an approved cell edited in the record: rerun and resume refuse it by name, nothing runs" bash -c "
  '$cli' rerun '$work/s-edited' --backend bwrap --data sales.csv='$work/new/sales.csv' --out '$work/s-edited-run' >'$work/out' 2>'$work/err';
  [ \$? -eq 10 ] && grep -q 'Cell c1 is not the code that was approved here' '$work/err' &&
  grep -q 'assay-cli session approve .*s-edited c1' '$work/err' && [ ! -e '$work/s-edited-run' ] &&
  ! '$cli' ask --backend bwrap --provider recorded --transcript '$work/done.json' --resume '$work/s-edited' --yes q2 \
      >'$work/out' 2>'$work/err' && grep -q 'Cell c1 is not the code that was approved here' '$work/err' &&
  ! grep -rq 'not approved' '$work/s-edited/artifacts' 2>/dev/null"
check "session approve shows the edited code and, answered y, approves it: rerun runs it" bash -c "
  echo n | '$cli' session approve '$work/s-edited' >'$work/shown' 2>'$work/err' && grep -q 'Cell c1 is not approved' '$work/err' &&
  ! '$cli' rerun '$work/s-edited' --backend bwrap --data sales.csv='$work/new/sales.csv' --out '$work/s-edited-run' >/dev/null 2>&1 &&
  echo y | '$cli' session approve '$work/s-edited' >'$work/shown' 2>'$work/err' &&
  grep -q \"print('not approved')\" '$work/shown' && grep -q '1 cell approved' '$work/err' &&
  '$cli' rerun '$work/s-edited' --backend bwrap --data sales.csv='$work/new/sales.csv' --out '$work/s-edited-run2' >'$work/out' 2>&1 &&
  grep -q 'not approved' '$work/s-edited-run2/session.json'"

exit $((failed > 0))
