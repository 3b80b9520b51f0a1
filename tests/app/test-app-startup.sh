#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The window as the analyst starts it (the real `assay`, in the X server run-gui-test.sh
# gives): with the cairo renderer no OpenGL driver is loaded (GTK 4.8 loads Mesa and LLVM at
# every start otherwise), with the default renderer GL draws, and either way the window
# paints its first frame without a warning.
#   test-app-startup.sh ASSAY
assay=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/assay-startup-XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
failed=0

# Starts ASSAY with the renderer RENDERER ("" for GTK's default) and GDK_DEBUG DEBUG, waits
# for its first frame and copies its memory map to $work/maps before ending it.
start() {
  local renderer=$1 debug=$2 pid
  rm -f "$work/err" "$work/maps"
  (
    [ -n "$renderer" ] && export GSK_RENDERER=$renderer || unset GSK_RENDERER
    [ -n "$debug" ] && export GDK_DEBUG=$debug || unset GDK_DEBUG
    exec env ASSAY_REPORT_FIRST_FRAME=1 "$assay" 2>"$work/err" >/dev/null
  ) &
  pid=$!
  for _ in $(seq 600); do
    grep -q "^assay-first-frame-us " "$work/err" 2>/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  cp "/proc/$pid/maps" "$work/maps" 2>/dev/null
  kill $pid 2>/dev/null
  wait $pid 2>/dev/null
}

check() {
  local what=$1
  shift
  n=$((n + 1))
  if "$@"; then
    echo "ok $n - $what"
  else
    echo "not ok $n - $what"
    sed 's/^/# /' "$work/err" | tail -20
    failed=$((failed + 1))
  fi
}

painted() { grep -q "^assay-first-frame-us " "$work/err"; }
quiet() { ! grep -E -q -- "-(CRITICAL|WARNING|ERROR) \*\*" "$work/err"; }
gl_loaded() { grep -E -q "(libGLX_mesa|libEGL_mesa|swrast_dri|libLLVM)" "$work/maps"; }
no_gl() { [ -s "$work/maps" ] && ! gl_loaded; }

start cairo ""
check "cairo: the first frame is painted" painted
check "cairo: no OpenGL driver is loaded" no_gl
check "cairo: no warning" quiet

# The analyst's own GDK_DEBUG keys are kept (and still no GL).
start cairo "misc"
check "cairo with GDK_DEBUG=misc: the first frame is painted" painted
check "cairo with GDK_DEBUG=misc: no OpenGL driver is loaded" no_gl

start "" ""
check "default renderer: the first frame is painted" painted
check "default renderer: OpenGL draws (its driver is loaded)" gl_loaded
check "default renderer: no warning" quiet

echo "1..$n"
[ $failed -eq 0 ]
