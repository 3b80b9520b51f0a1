#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs the kernel's protocol tests against the kernel in the built sandbox tree, under
# bubblewrap. Usage: run-kernel-protocol.sh ASSAY_CLI TEST_SCRIPT
set -euo pipefail
cli="$1"; script="$2"
tree=$("$cli" sandbox status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bwrap"]["tree"])')
if [ ! -f "$tree/.assay-complete" ]; then
  echo "1..1"; echo "not ok 1 - the sandbox tree $tree is missing (run assay-cli sandbox build)"; exit 1
fi
kernel_dir="$(cd "$(dirname "$script")/../../sandbox/kernel" && pwd)"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
exec python3 "$script" -- "${as_user[@]}" bwrap --ro-bind "$tree" / --ro-bind "$kernel_dir" /opt/assay/kernel \
  --proc /proc --dev /dev --tmpfs /tmp --tmpfs /workspace --unshare-all --unshare-user \
  --die-with-parent --new-session --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /tmp \
  --setenv LANG C.UTF-8 --setenv MPLBACKEND Agg --setenv MPLCONFIGDIR /tmp/matplotlib \
  --chdir /workspace --uid 1000 --gid 1000 python3 -I /opt/assay/kernel/assay_kernel.py
