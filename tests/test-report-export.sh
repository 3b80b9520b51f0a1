#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `assay-cli export` on real sessions: the reference sales case and a small one of our own
# (a Cyrillic question, a DataFrame, an inline figure and a saved one, a hostile string in an
# output, a failing cell), made with the recorded provider in the real sandbox (bubblewrap),
# each exported as PDF, HTML and notebook and checked with poppler, nbformat and grep.
# Usage: test-report-export.sh ASSAY_CLI SOURCE_DIR
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
has () { grep -qF -- "$2" "$1" || { echo "“$2” not in $1"; return 1; }; }
lacks () { ! grep -qF -- "$2" "$1" || { echo "“$2” is in $1"; return 1; }; }
PY=/usr/bin/python3

# ---- the sessions ----
mkdir -p "$work/data"
"$PY" "$src/../data/demo/make_sales_csv.py" "$work/data/sales.csv" >/dev/null
check "the sales session runs" "$cli" ask --backend bwrap --provider recorded \
  --transcript "$src/../data/demo/sales-transcript.json" --data "$work/data/sales.csv" --yes \
  --out "$work/sales" "Analyse Q3 sales"
mkdir -p "$work/small"
printf 'region,amount\nnorth,10\nsouth,20\neast,30\n' > "$work/small/sales.csv"
# Its answer's total (60) was printed by no cell, and no second try is scripted.
check "the report session runs" "$cli" ask --backend bwrap --provider recorded \
  --transcript "$src/report/report-transcript.json" --data "$work/small/sales.csv" --yes --no-check-numbers \
  --out "$work/ru" "Проанализируй продажи за третий квартал"

for s in sales ru; do
  for f in pdf html ipynb; do
    check "export $s as $f" "$cli" export "$work/$s" --format "$f" -o "$work/$s.$f"
  done
done

# ---- PDF ----
pdftotext -layout "$work/sales.pdf" "$work/sales.txt" 2>/dev/null
pdftotext "$work/ru.pdf" "$work/ru.txt" 2>/dev/null
check "PDF: the question" has "$work/sales.txt" "Analyse Q3 sales"
check "PDF: a sentence of the answer" has "$work/sales.txt" "The biggest loss is between visit and"
check "PDF: a line of the code" has "$work/sales.txt" 'raw = pd.read_csv("/data/sales.csv")'
check "PDF: a line of a cell's output" has "$work/sales.txt" "Shape: 45,162 rows x 5 columns"
check "PDF: the table of contents" bash -c "grep -q '^ *Contents' '$work/sales.txt' && grep -Eq 'Question 1: Analyse Q3 sales +[0-9]+' '$work/sales.txt' && grep -Eq 'Appendix: the code and its output +[0-9]+' '$work/sales.txt'"
check "PDF: the Cyrillic question round-trips" has "$work/ru.txt" "Проанализируй продажи за третий квартал"
check "PDF: Cyrillic in the answer's table" has "$work/ru.txt" "Регион"
check "PDF: a DataFrame as a table" has "$work/ru.txt" "north"
check "PDF: page numbers" has "$work/sales.txt" "Page 1 of"
check "PDF: ≥ 3 images" bash -c "[ \$(pdfimages -list '$work/sales.pdf' | tail -n +3 | wc -l) -ge 3 ]"
# The saved figure is shown once, though the cell also called plt.show(); the open one inline.
check "PDF: the inline and the saved figure, each once" bash -c "[ \$(pdfimages -list '$work/ru.pdf' | tail -n +3 | wc -l) -eq 2 ]"
check "PDF: Title metadata and pages" bash -c "pdfinfo '$work/sales.pdf' | grep -q '^Title: *Analyse Q3 sales' && pdfinfo '$work/sales.pdf' | grep -Eq '^Pages: *[0-9]+'"
check "PDF: an outline and links" "$PY" -c "
import re, sys
data = open('$work/sales.pdf', 'rb').read()
assert b'/Outlines' in data, 'no /Outlines'
assert re.search(rb'/Type\s*/Outlines\s*/First', data) or b'/First' in data, 'empty outline'
assert b'/Subtype /Link' in data, 'no links'
"
check "PDF --no-code: no code, still the output" bash -c "
  '$cli' export '$work/sales' -o '$work/nocode.pdf' --no-code && pdftotext '$work/nocode.pdf' '$work/nocode.txt' &&
  ! grep -qF 'raw = pd.read_csv' '$work/nocode.txt' && grep -qF 'Shape: 45,162 rows x 5 columns' '$work/nocode.txt'"
check "PDF: the failing cell is there" has "$work/ru.txt" "no_such_column"
check "PDF --only-successful drops the failing cell" bash -c "
  '$cli' export '$work/ru' -o '$work/ok.pdf' --only-successful && pdftotext '$work/ok.pdf' '$work/ok.txt' &&
  ! grep -qF 'no_such_column' '$work/ok.txt' && grep -qF 'Bar chart of the regions' '$work/ok.txt'"

# ---- notebook ----
validate () {
  "$PY" - "$1" <<'PY'
import sys, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbformat.validate(nb)
assert nb.nbformat == 4 and nb.nbformat_minor >= 5
PY
}
check "ipynb: valid against nbformat's schema (sales)" validate "$work/sales.ipynb"
check "ipynb: valid against nbformat's schema (ru)" validate "$work/ru.ipynb"
check "ipynb: outputs, images, counts" "$PY" - "$work/sales.ipynb" "$work/ru.ipynb" <<'PY'
import sys, nbformat
sales = nbformat.read(sys.argv[1], as_version=4)
ru = nbformat.read(sys.argv[2], as_version=4)
code = [c for c in sales.cells if c.cell_type == "code" and c.execution_count]
assert [c.execution_count for c in code] == list(range(1, 7)), [c.execution_count for c in code]
streams = [o for c in code for o in c.outputs if o.output_type == "stream"]
assert any("Shape: 45,162 rows" in o.text for o in streams)
assert code[0].source.startswith("import pandas as pd")
kinds = {o.output_type for c in ru.cells if c.cell_type == "code" for o in c.outputs}
assert {"stream", "execute_result", "display_data", "error"} <= kinds, kinds
pngs = [o for c in ru.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
assert len(pngs) == 2, len(pngs)
html = [o for c in ru.cells if c.cell_type == "code" for o in c.outputs if "text/html" in o.get("data", {})]
assert html, "no DataFrame HTML"
md = "\n".join(c.source for c in ru.cells if c.cell_type == "markdown")
assert "**Question:** Проанализируй продажи за третий квартал" in md
assert "/data/" in md and "sales.csv" in md
PY
check "ipynb --only-successful drops the failing cell" bash -c "
  '$cli' export '$work/ru' -o '$work/ok.ipynb' --only-successful && ! grep -q no_such_column '$work/ok.ipynb'"

# ---- HTML ----
check "HTML: the answer" has "$work/sales.html" "The biggest loss is between visit and cart"
check "HTML: the inline and the saved figure, each once" bash -c "[ \$(grep -o '<img [^>]*src=\"data:image/png;base64,' '$work/ru.html' | wc -l) -eq 2 ]"
check "HTML: ≥ 3 embedded images" bash -c "[ \$(grep -o '<img [^>]*src=\"data:image/png;base64,' '$work/sales.html' | wc -l) -ge 3 ]"
check "HTML: no script" lacks "$work/ru.html" "<script"
check "HTML: the hostile output escaped" has "$work/ru.html" "&lt;script&gt;alert(1)&lt;/script&gt; &amp; done"
check "HTML: Cyrillic" has "$work/ru.html" "Проанализируй продажи за третий квартал"
check "no appendix of requests unless asked for" bash -c "
  ! grep -qF 'What was sent to the model' '$work/sales.html' && ! grep -qF 'What was sent to the model' '$work/sales.ipynb' &&
  ! pdftotext '$work/sales.pdf' - | grep -qF 'What was sent to the model'"
# The recorded provider sends nothing over the network, so the appendix says that none was recorded.
check "--with-requests: the appendix in each format" bash -c "
  for f in pdf html ipynb; do '$cli' export '$work/sales' --with-requests -o \"$work/req.\$f\" || exit 1; done &&
  grep -qF 'No request to a model server is recorded in this session' '$work/req.html' &&
  grep -qF 'What was sent to the model' '$work/req.ipynb' &&
  pdftotext '$work/req.pdf' - | grep -qF 'What was sent to the model'"
check "ipynb --with-requests: valid against nbformat's schema" validate "$work/req.ipynb"

# ---- a damaged figure becomes a note ----
check "a broken PNG is a note, not a crash" bash -c "
  cp -a '$work/ru' '$work/broken' && for f in '$work'/broken/artifacts/*.png; do head -c 60 \"\$f\" > \"\$f.x\" && mv \"\$f.x\" \"\$f\"; done &&
  '$cli' export '$work/broken' -o '$work/broken.pdf' && '$cli' export '$work/broken' -o '$work/broken.html' &&
  '$cli' export '$work/broken' -o '$work/broken.ipynb' &&
  pdftotext '$work/broken.pdf' - | grep -q 'cannot be shown' && grep -q 'cannot be shown' '$work/broken.html'"

# ---- the contract ----
check "the format from the extension" bash -c "'$cli' export '$work/sales' -o '$work/auto.html' && head -c 15 '$work/auto.html' | grep -q '<!DOCTYPE html>'"
check "a missing session fails with the reason" bash -c "! '$cli' export '$work/nowhere' -o '$work/x.pdf' 2>'$work/err' && [ -s '$work/err' ] && [ ! -e '$work/x.pdf' ]"
check "a damaged session fails with the reason" bash -c "mkdir -p '$work/bad' && echo '{not json' > '$work/bad/session.json' && ! '$cli' export '$work/bad' -o '$work/x.pdf' 2>'$work/err' && [ -s '$work/err' ] && [ ! -e '$work/x.pdf' ]"
check "an unknown extension asks for --format" bash -c "! '$cli' export '$work/sales' -o '$work/x.doc' 2>'$work/err' && grep -q format '$work/err'"
check "a failed write leaves no file behind" bash -c "mkdir -p '$work/ro' && chmod 555 '$work/ro' && if [ \$(id -u) -eq 0 ]; then ! '$cli' export '$work/sales' -o /proc/x.pdf 2>'$work/err'; else ! '$cli' export '$work/sales' -o '$work/ro/x.pdf' 2>'$work/err'; fi && [ -s '$work/err' ] && [ -z \"\$(ls -A '$work/ro')\" ]"

echo "1..$n"
[ "$failed" -eq 0 ]
