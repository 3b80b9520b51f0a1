#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copies the screenshots the GUI tests took (meson test -C build --suite gui) into
# data/screenshots, where the AppStream metainfo and the README point. Run after a change
# that shows in the window, then commit the PNGs.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
for name in main approval artifacts data databases sqlite; do
  cp "$build/screenshots/$name.png" "data/screenshots/$name.png"
done
python3 - <<'PY'
import struct
for name in ("main", "approval", "artifacts", "data", "databases", "sqlite"):
    with open("data/screenshots/%s.png" % name, "rb") as f:
        w, h = struct.unpack(">II", f.read(24)[16:24])
    print("data/screenshots/%s.png: %dx%d" % (name, w, h))
PY
