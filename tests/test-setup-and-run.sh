#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's first command, run as a new user runs it: `./setup-and-run` in a clean checkout
# of this tree (the files git knows, as they are in the working tree; no build folder), its
# install step a no-op because the packages are present. Without a display it must end with
# the demo's answer and its artifacts; under Xvfb it must open the window on the onboarding.
# Usage: test-setup-and-run.sh SOURCE_ROOT
set -uo pipefail
src="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d "${TMPDIR:-/tmp}/assay-setup-and-run-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
has () { grep -qF -- "$2" "$1" || { echo "“$2” not in $1:"; tail -40 "$1"; return 1; }; }

# The clean checkout.
checkout="$work/assay"
mkdir -p "$checkout"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$src" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$src/$f" ] && printf '%s\0' "$f"; done |
    tar -C "$src" --null -T - -cf - | tar -C "$checkout" -xf -
else
  tar -C "$src" --exclude=./build --exclude=./build-asan -cf - . | tar -C "$checkout" -xf -
fi

# A user's environment, not the test suite's: none of the variables meson test sets for the
# other tests, a data folder of its own (the sessions the demo saves), the sandbox image the
# build in front of this test prepared (a user's store; as root, /var/lib/assay/sandbox).
if [ "$(id -u)" -ne 0 ] && [ -z "${ASSAY_SANDBOX_STORE:-}" ]; then
  export ASSAY_SANDBOX_STORE="${XDG_DATA_HOME:-$HOME/.local/share}/assay/sandbox"
fi
unset ASSAY_SANDBOX_DIR ASSAY_PRICES_FILE GSETTINGS_SCHEMA_DIR G_DEBUG G_SLICE DISPLAY WAYLAND_DISPLAY \
      ASSAY_LOCALEDIR ASSAY_DEMO_DIR MESON_TEST_ITERATION
export XDG_DATA_HOME="$work/home/data" XDG_CONFIG_HOME="$work/home/config" XDG_CACHE_HOME="$work/home/cache"
export GSETTINGS_BACKEND=memory
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"

# No display: the recorded demo on the terminal.
(cd "$checkout" && timeout 2400 ./setup-and-run) >"$work/headless.out" 2>"$work/headless.err" </dev/null
status=$?
echo "# setup-and-run without a display: exit $status"
check "without a display, setup-and-run ends well" bash -c "[ $status -eq 0 ] || { tail -40 '$work/headless.err'; exit 1; }"
check "it built the clean checkout" test -x "$checkout/build/src/cli/assay-cli"
check "it says it runs the demo" has "$work/headless.out" "No display: running the recorded demo"
# The demo's answer, with the numbers the recorded model computed from the demo's data.
check "the demo's answer" has "$work/headless.out" "Q3 2026 sales: summary"
check "the answer's revenue" has "$work/headless.out" "1,651,593.25"
check "the answer's conversion" has "$work/headless.out" "26.8%"
sessions=("$XDG_DATA_HOME"/assay/sessions/*/)
check "one session saved" test "${#sessions[@]}" -eq 1 -a -f "${sessions[0]}/session.json"
check "the session answered, every number traced" /usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
assert s['status'] == 'answered', s['status']
assert 'Q3 2026 sales: summary' in s['answer'], s['answer'][:200]
numbers = [x for p in s['provenance'] for x in p['numbers']]
assert len(numbers) > 20, len(numbers)
assert all(x['found'] for x in numbers), [x['text'] for x in numbers if not x['found']]
" "${sessions[0]}/session.json"
# Its artifacts: three charts and the PDF report (the sales case's own check).
n=$((n + 1))
if python3 "$here/e2e/check_sales_case.py" "${sessions[0]}" >"$work/artifacts" 2>&1; then
  echo "ok $n - the demo's charts and PDF report"
else
  echo "not ok $n - the demo's charts and PDF report"; sed 's/^/# /' "$work/artifacts"; failed=$((failed + 1))
fi

# A display (Xvfb): the window, on the onboarding since no model is set. The install, the
# build and the sandbox image are there now, so this is the second start of a user's.
xvfb-run -a -s "-screen 0 1400x900x24 -nolisten tcp" \
  env ASSAY_REPORT_FIRST_FRAME=1 ASSAY_QUIT_AFTER_FIRST_FRAME=1 \
  bash -c "cd '$checkout' && exec timeout 600 ./setup-and-run" >"$work/window.out" 2>"$work/window.err" </dev/null
status=$?
echo "# setup-and-run with a display: exit $status"
check "with a display, setup-and-run starts the window" bash -c "[ $status -eq 0 ] || { tail -40 '$work/window.err'; exit 1; }"
check "the window painted its first frame" has "$work/window.err" "assay-first-frame-us "
check "the window shows the onboarding" has "$work/window.err" "assay-first-frame-page onboarding"
check "nothing critical on the way" bash -c "! grep -E -- '-(CRITICAL|ERROR) \*\*' '$work/window.err' '$work/headless.err'"

echo "1..$n"
[ $failed -eq 0 ]
