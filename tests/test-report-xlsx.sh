#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `assay-cli export` as an Excel workbook, read back with openpyxl. The session is made with
# the recorded provider in the real sandbox (bubblewrap): a DataFrame of numbers, dates and
# texts (one that looks like a formula, a code with a leading zero), a figure, a failing
# cell. Copies of its record add what the sandbox never gives: "What changed" of a run
# again, control characters, a formula as a description, a cell id no sheet name may hold.
# Then the failures: an unwritable folder, no temporary folder, a full disk.
# Usage: test-report-xlsx.sh ASSAY_CLI SOURCE_DIR
set -uo pipefail
cli="$1"
src="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
skip () { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# The distribution's Python: it has openpyxl (python3-openpyxl).
PY=/usr/bin/python3
# ---- the session ----
mkdir -p "$work/data"
cat > "$work/data/sales.csv" <<'CSV'
region,amount,price,day,at
north,1234,1234.5,2024-01-05,2024-01-05 13:45:00
south,-20,-3.25,2024-02-29,2024-02-29 00:00:01
east,86,0.125,2023-12-31,2023-12-31 23:59:59
CSV
check "the session runs" "$cli" ask --backend bwrap --provider recorded \
  --transcript "$src/report/xlsx-transcript.json" --data "$work/data/sales.csv" --yes --no-check-numbers \
  --out "$work/s" "Sum the sales"
# From here on libxlsxwriter's pieces and our temporary workbook go here: it must stay empty.
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"

check "export by the extension" "$cli" export "$work/s" -o "$work/s.xlsx"
check "export with --format xlsx, whatever the name" bash -c "
  '$cli' export '$work/s' --format xlsx -o '$work/s.data' && head -c 2 '$work/s.data' | grep -q PK"
check "export --no-code" "$cli" export "$work/s" --no-code -o "$work/nocode.xlsx"
check "no temporary file is left behind" bash -c "[ -z \"\$(ls -A '$work/tmp')\" ]"

check "the sheets, their names as Excel takes them" "$PY" - "$work/s.xlsx" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
assert wb.sheetnames == ['Summary', 'c1 table 1', 'Figures', 'Cells', 'Audit Trail'], wb.sheetnames
PY

check "a table: header bold, filled, a line below, frozen, filtered; the index column" "$PY" - "$work/s.xlsx" <<'PY'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['c1 table 1']
header = [c.value for c in ws[1]]
assert header == [None, 'region', 'amount', 'price', 'day', 'at', 'label', 'share'], header
for c in ws[1]:
    assert c.font.b, (c.coordinate, 'not bold')
    assert c.fill.fill_type == 'solid', (c.coordinate, c.fill.fill_type)
    assert c.border.bottom.style == 'thin', (c.coordinate, c.border.bottom.style)
assert not ws['B2'].font.b, 'a body cell is bold'
assert ws.freeze_panes == 'A2', ws.freeze_panes
assert ws.auto_filter.ref == 'A1:H4', ws.auto_filter.ref
assert [ws.cell(r, 1).value for r in (2, 3, 4)] == [0, 1, 2], 'the index column'
assert ws.max_row == 4, ws.max_row
PY

check "a table: numbers are numbers, dates are dates, texts stay texts" "$PY" - "$work/s.xlsx" <<'PY'
import sys, datetime, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['c1 table 1']
col = lambda letter: [ws[f'{letter}{r}'] for r in (2, 3, 4)]
amount = [c.value for c in col('C')]
assert amount == [1234, -20, 86] and all(isinstance(v, (int, float)) for v in amount), amount
price = [c.value for c in col('D')]
assert price == [1234.5, -3.25, 0.125], price
assert all(c.data_type == 'n' for c in col('C') + col('D'))
# "12.5%", "-3%" as fractions shown with a percent format; "1,234.5" as a grouped number.
share = col('H')
assert [c.value for c in share] == [0.125, -0.03, 1234.5], [c.value for c in share]
assert '%' in share[0].number_format and '%' in share[1].number_format, share[0].number_format
assert share[2].number_format == '#,##0.0', share[2].number_format
day = [c.value for c in col('E')]
assert day == [datetime.datetime(2024, 1, 5), datetime.datetime(2024, 2, 29), datetime.datetime(2023, 12, 31)], day
assert col('E')[0].number_format == 'yyyy-mm-dd', col('E')[0].number_format
at = [c.value for c in col('F')]
assert at[0] == datetime.datetime(2024, 1, 5, 13, 45) and at[1] == datetime.datetime(2024, 2, 29, 0, 0, 1), at
assert col('F')[0].number_format == 'yyyy-mm-dd hh:mm:ss', col('F')[0].number_format
label = col('G')
# The formula-looking string is a string; "007" keeps its zeros.
assert [c.value for c in label] == ['=1+1', '007', 'bellhere'], [c.value for c in label]
assert [c.data_type for c in label] == ['s', 's', 's'], [c.data_type for c in label]
assert [c.value for c in col('B')] == ['north', 'south', 'east']
PY

check "a table: the columns as wide as their texts" "$PY" - "$work/s.xlsx" <<'PY'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['c1 table 1']
width = {k: v.width for k, v in ws.column_dimensions.items()}
assert 19 <= width['F'] <= 25, width          # "2024-01-05 13:45:00"
assert width['A'] < width['F'], width
assert all(w <= 61 for w in width.values()), width
PY

check "the raw sheet holds no formula at all" "$PY" - "$work/s.xlsx" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in z.namelist():
    if name.startswith('xl/worksheets/sheet'):
        assert b'<f>' not in z.read(name) and b'<f ' not in z.read(name), name
PY

check "figures: one image, its caption above it, 800 px wide" "$PY" - "$work/s.xlsx" <<'PY'
import sys, re, zipfile, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Figures']
assert len(ws._images) == 1, len(ws._images)
assert ws['A1'].value == 'Figure 1: output of cell c2', ws['A1'].value
assert ws._images[0].anchor._from.row == 1, ws._images[0].anchor._from.row
# 1200 px at 100 dpi (libxlsxwriter draws 1152 px at 96) scaled down to 800 px.
drawing = zipfile.ZipFile(sys.argv[1]).read('xl/drawings/drawing1.xml').decode()
cx = int(re.search(r'<a:ext cx="(\d+)"', drawing).group(1))
assert cx == 800 * 9525, cx
PY

check "cells: number, id, description, status, reason, time, code" "$PY" - "$work/s.xlsx" <<'PY'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Cells']
assert [c.value for c in ws[1]] == ['#', 'Cell', 'Description', 'Status', 'Reason', 'Time (ms)', 'Code'], [c.value for c in ws[1]]
assert ws.freeze_panes == 'A2', ws.freeze_panes
rows = [[c.value for c in row] for row in ws.iter_rows(min_row=2)]
assert [r[0] for r in rows] == [1, 2, 3], rows
assert [r[1] for r in rows] == ['c1', 'c2', 'c3'], rows
assert [r[3] for r in rows] == ['ok', 'ok', 'error'], [r[3] for r in rows]
assert 'KeyError' in rows[2][4], rows[2][4]
assert all(isinstance(r[5], (int, float)) for r in rows), [r[5] for r in rows]
assert rows[0][2] == 'Load the sales', rows[0][2]
assert rows[0][6].startswith('import pandas as pd\n'), rows[0][6]
code = ws['G2']
assert code.font.name == 'Courier New' and code.alignment.wrap_text, (code.font.name, code.alignment.wrap_text)
PY

check "--no-code: no code column" "$PY" - "$work/nocode.xlsx" <<'PY'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Cells']
assert [c.value for c in ws[1]] == ['#', 'Cell', 'Description', 'Status', 'Reason', 'Time (ms)'], [c.value for c in ws[1]]
assert all('import' not in str(c.value) for row in ws.iter_rows() for c in row)
PY

check "summary: title, data, the question and its answer a block a row, its table as cells" "$PY" - "$work/s.xlsx" <<'PY'
import sys, re, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Summary']
assert ws['A1'].value == 'Sum the sales' and ws['A1'].font.b, ws['A1'].value
assert re.fullmatch(r'\d{4}-\d\d-\d\d \d\d:\d\d', ws['A2'].value), ws['A2'].value
cells = {c.value: c for row in ws.iter_rows() for c in row if c.value is not None}
data = cells['sales.csv']
assert ws.cell(data.row, 2).value == 3 and ws.cell(data.row, 2).data_type == 'n'
assert re.fullmatch(r'[0-9a-f]{64}', ws.cell(data.row, 3).value), ws.cell(data.row, 3).value
number = [c for c in ws['A'] if c.value == '#']
assert len(number) == 1 and number[0].font.b, 'no header of the questions'
assert ws.cell(number[0].row + 1, 1).value == 1, ws.cell(number[0].row + 1, 1).value
assert ws.cell(number[0].row + 1, 2).value == 'Sum the sales', ws.cell(number[0].row + 1, 2).value
# The answer beside its question, a block a row: the heading, the paragraph, each list item;
# its table as cells, the header bold, the numbers as numbers.
q = number[0].row + 1
answer = []
r = q
while ws.cell(r, 3).value is not None:
    answer.append([ws.cell(r, c).value for c in range(3, 5)])
    r += 1
texts = [a[0] for a in answer]
assert texts[:6] == ['Result', 'The total amount is 1,300, over 3 regions:', '• north sells the most',
                     '• see the notes (https://example.org/notes)', '• questions to sales@example.org', 'region'], texts
assert ws.cell(q, 3).font.b, 'the heading is not bold'
assert not any('mailto' in str(t) for row in answer for t in row), answer
assert '**' not in ''.join(map(str, texts)) and '`' not in ''.join(map(str, texts)), texts
assert answer[5:] == [['region', 'amount'], ['north', 1234], ['south', -20], ['east', 86]], answer[5:]
assert ws.cell(q + 5, 4).font.b and ws.cell(q + 6, 4).data_type == 'n', 'the table is not cells'
assert 'What Changed' not in cells, 'a What changed section in a session that ran nothing again'
assert cells['c1 table 1'].column == 1, 'the tables listed'
PY

# ---- a run again: "What changed" ----
cp -a "$work/s" "$work/rerun"
"$PY" - "$work/rerun/session.json" "$work/s" <<'PY'
import json, sys
path = sys.argv[1]
record = json.load(open(path))
record['rerun_of'] = sys.argv[2]
record['rerun_of_title'] = 'Sum the sales (Q3)'
record['changes'] = [
    {'question': 1, 'before_text': '1,234', 'after_text': '1,300', 'before': 1234, 'after': 1300, 'stale': False, 'cell': 'c1',
     'label': 'total: …', 'sentence': 'The total is 1,300.'},
    {'question': 1, 'before_text': '12.5%', 'after_text': '12.5%', 'before': 12.5, 'after': 12.5, 'stale': True, 'cell': 'c1'},
]
record['rerun_notes'] = ['sales.csv was converted from Windows-1251 to UTF-8.']
json.dump(record, open(path, 'w'))
PY
check "export the run again" "$cli" export "$work/rerun" -o "$work/rerun.xlsx"
check "summary: What changed, before and after as numbers, stale marked" "$PY" - "$work/rerun.xlsx" <<'PY'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Summary']
rows = [[c for c in row] for row in ws.iter_rows()]
title = [r for r in rows if r[0].value == 'What Changed']
assert len(title) == 1 and title[0][0].font.b, 'no What Changed heading'
at = title[0][0].row
assert 'Sum the sales (Q3)' in ws.cell(at + 1, 1).value, ws.cell(at + 1, 1).value
assert ws.cell(at + 2, 1).value == 'sales.csv was converted from Windows-1251 to UTF-8.', ws.cell(at + 2, 1).value
header = [ws.cell(at + 3, c).value for c in range(1, 9)]
assert header == ['Question', 'Number', 'Before', 'After', 'Change', 'Change %', 'Cell', 'In the answer'], header
assert ws.cell(at + 3, 2).font.b
first = [ws.cell(at + 4, c) for c in range(1, 9)]
assert [c.value for c in first[:1] + first[2:5]] == [1, 1234, 1300, 66], [c.value for c in first]
assert first[1].value == 'total: …', first[1].value
assert all(c.data_type == 'n' for c in first[:1] + first[2:6]), [c.data_type for c in first]
assert first[2].number_format == '#,##0', first[2].number_format
assert abs(first[5].value - 66 / 1234) < 1e-9 and '%' in first[5].number_format, (first[5].value, first[5].number_format)
assert first[6].value == 'c1', first[6].value
assert first[7].value == 'The total is 1,300.', first[7].value
# A record without labels (an older one) says which answer the number is of.
assert ws.cell(at + 5, 2).value == 'a number of answer 1', ws.cell(at + 5, 2).value
stale = [ws.cell(at + 5, c) for c in range(1, 9)]
assert stale[2].value == 12.5 and stale[2].data_type == 'n' and stale[2].number_format == '#,##0.0', stale[2].value
assert stale[4].value == 'stale', stale[4].value
PY

# ---- what the sandbox never gives: control characters, formulas, a hostile cell id ----
cp -a "$work/s" "$work/hostile"
"$PY" - "$work/hostile/session.json" <<'PY'
import json, sys
path = sys.argv[1]
record = json.load(open(path))
cell = record['cells'][0]
cell['id'] = "c1:[x]/y?*\\'" + 'z' * 40
cell['description'] = '=HYPERLINK("http://example.org","x")\u0001\u001b[31m\u009b'
cell['code'] = 'x = 1\n' * 8000             # 48,000 characters: more than a cell holds
html = cell['outputs'][1]['data']['text/html']
html = html if isinstance(html, str) else ''.join(html)
cell['outputs'][1]['data']['text/html'] = html.replace('bellhere', 'bell\u0007\u0008\u007fhere').replace('>north<', '>=SUM(A1:A9)<')
# A second cell of the same id with the same table: the sheet names must differ.
twin = json.loads(json.dumps(cell))
twin['step'] = cell['step']
twin['code'] = 'print(1)'
# ... and a table longer than Assay keeps (500 rows).
rows = ''.join(f'<tr><th>{i}</th><td>{i * 1.5}</td></tr>' for i in range(600))
twin['outputs'][1]['data']['text/html'] = f'<table><thead><tr><th></th><th>x</th></tr></thead><tbody>{rows}</tbody></table>'
record['cells'].insert(1, twin)
for message in record['messages']:
    if message.get('role') == 'user':
        message['text'] = 'Sum\u0007 the sales'
json.dump(record, open(path, 'w'))
PY
check "export the crafted session" "$cli" export "$work/hostile" -o "$work/hostile.xlsx"
check "sheet names: legal, at most 31 characters, unique" "$PY" - "$work/hostile.xlsx" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
names = wb.sheetnames
tables = [n for n in names if n not in ('Summary', 'Figures', 'Cells', 'Audit Trail')]
assert len(tables) == 2, names
for name in names:
    assert 0 < len(name) <= 31 and not any(ch in name for ch in '[]:*?/\\'), name
    assert not name.startswith("'") and not name.endswith("'"), name
assert len({n.lower() for n in names}) == len(names), names
assert tables[0].startswith('c1_'), tables
PY
check "caps: a cut table says so, a text longer than a cell is cut and says so" "$PY" - "$work/hostile.xlsx" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
long = wb[[n for n in wb.sheetnames if n.endswith(' (2)')][0]]
# 500 rows kept: the header and 499 of the body, then a blank row and the note.
assert long['B2'].value == 0 and long['B500'].value == 498 * 1.5, (long['B2'].value, long['B500'].value)
assert long.max_row == 502 and long.auto_filter.ref == 'A1:B500', (long.max_row, long.auto_filter.ref)
assert long['A502'].value.startswith('This table was cut: Assay keeps at most 500 rows'), long['A502'].value
assert long['A502'].font.i, 'the note is not set apart'
cells = wb['Cells']
code = cells['G2'].value
assert len(code) == 32767 and code.endswith('…') and code.startswith('x = 1\n'), (len(code), code[-3:])
notes = [c.value for c in cells['A'] if isinstance(c.value, str) and 'were cut' in c.value]
# The count is grouped as the locale groups it.
assert len(notes) == 1 and notes[0].replace(',', '') == 'Texts longer than a cell holds (32767 characters) were cut; they end with “…”.', notes
PY
check "control characters stripped, formulas kept as strings" "$PY" - "$work/hostile.xlsx" <<'PY'
import sys, re, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
control = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f]')
for ws in wb:
    for row in ws.iter_rows():
        for c in row:
            assert c.data_type != 'f', (ws.title, c.coordinate, c.value)
            if isinstance(c.value, str):
                assert not control.search(c.value), (ws.title, c.coordinate, repr(c.value))
table = wb[[n for n in wb.sheetnames if n.startswith('c1_')][0]]
assert table['G4'].value == 'bellhere', repr(table['G4'].value)
assert table['B2'].value == '=SUM(A1:A9)' and table['B2'].data_type == 's', table['B2'].value
cells = wb['Cells']
assert cells['C2'].value.startswith('=HYPERLINK(') and cells['C2'].data_type == 's', cells['C2'].value
assert cells['C2'].value.endswith('[31m'), repr(cells['C2'].value)
summary = wb['Summary']
questions = [c for c in summary['A'] if c.value == '#'][0].row + 1
assert summary.cell(questions, 2).value == 'Sum the sales', repr(summary.cell(questions, 2).value)
PY

# ---- failures ----
check "an unknown format names xlsx and bundle" bash -c "
  ! '$cli' export '$work/s' --format nope -o '$work/x.xlsx' 2>'$work/err'; grep -q 'xlsx, bundle' '$work/err' && [ ! -e '$work/x.xlsx' ]"
check "an unwritable folder: exit 1, the reason, no file" bash -c "
  mkdir -p '$work/ro' && chmod 555 '$work/ro'
  if [ \$(id -u) -eq 0 ]; then out=/proc/x.xlsx; else out='$work/ro/x.xlsx'; fi
  '$cli' export '$work/s' -o \"\$out\" 2>'$work/err'; code=\$?
  [ \$code -eq 1 ] && [ -s '$work/err' ] && [ ! -e \"\$out\" ] && [ -z \"\$(ls -A '$work/ro')\" ]"
check "no temporary folder: exit 1, says so, no file" bash -c "
  mkdir -p '$work/out1'
  TMPDIR='$work/nowhere' '$cli' export '$work/s' -o '$work/out1/x.xlsx' 2>'$work/err'; code=\$?
  [ \$code -eq 1 ] && grep -q 'temporary folder' '$work/err' && [ -z \"\$(ls -A '$work/out1')\" ]"

# A full disk, for real: a small tmpfs in a mount namespace of our own, filled up.
if unshare -m true 2>/dev/null || unshare -rm true 2>/dev/null; then
  userns=""; unshare -m true 2>/dev/null || userns="-r"
  check "a full disk under the workbook: exit 1, 'disk is full', nothing left" \
    unshare $userns -m bash -c "
      mkdir -p '$work/full' && mount -t tmpfs -o size=512k tmpfs '$work/full' || exit 1
      mkdir '$work/full/tmp' '$work/full/out'
      dd if=/dev/zero of='$work/full/filler' bs=4k 2>/dev/null
      TMPDIR='$work/full/tmp' '$cli' export '$work/s' -o '$work/full/out/x.xlsx' 2>'$work/err'; code=\$?
      cat '$work/err'
      [ \$code -eq 1 ] && grep -qi 'disk is full' '$work/err' &&
        [ -z \"\$(ls -A '$work/full/out')\" ] && [ -z \"\$(ls -A '$work/full/tmp')\" ]"
  check "a full disk under the report: exit 1, 'disk is full', nothing left" \
    unshare $userns -m bash -c "
      mkdir -p '$work/full2' && mount -t tmpfs -o size=512k tmpfs '$work/full2' || exit 1
      mkdir '$work/full2/out'
      dd if=/dev/zero of='$work/full2/filler' bs=4k 2>/dev/null
      '$cli' export '$work/s' -o '$work/full2/out/x.xlsx' 2>'$work/err'; code=\$?
      cat '$work/err'
      [ \$code -eq 1 ] && grep -qi 'disk is full' '$work/err' && [ -z \"\$(ls -A '$work/full2/out')\" ] &&
        [ -z \"\$(ls -A '$work/tmp')\" ]"
else
  skip "a full disk under the workbook" "no mount namespace here"
  skip "a full disk under the report" "no mount namespace here"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
