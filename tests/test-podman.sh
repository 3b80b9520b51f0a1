#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Podman for real: a rootful `podman system service` that this test starts on a unix socket of
# its own (storage, run root and tmp dir in a temp folder; the machine's Docker and any system
# Podman are left alone), the sandbox image imported into it with `assay-cli sandbox build`,
# then the sandbox suite's scenarios through DOCKER_HOST, the CLI's basic, dataset, artifact and
# hostile cells, and a rootless Podman on cgroup v1 refused. Also what Assay says when
# DOCKER_HOST names an engine it cannot use.
# Usage: test-podman.sh ASSAY_CLI TEST_SANDBOX TEST_DOCKER_BACKEND SOURCE_DIR
set -uo pipefail
cli="$1"; test_sandbox="$2"; test_docker_backend="$3"
transcript="$4/data/demo/sales-transcript.json"
work=$(mktemp -d /tmp/assay-podman-XXXXXX)
service_pid=""; rootless_pid=""
podman_options=(--root "$work/root" --runroot "$work/runroot" --tmpdir "$work/tmp"
                --cgroup-manager cgroupfs --events-backend file)
cleanup () {
  if [ -n "$service_pid" ]; then
    podman "${podman_options[@]}" rm --all --force --time 0 >/dev/null 2>&1
    kill "$service_pid" 2>/dev/null; wait "$service_pid" 2>/dev/null
  fi
  if [ -n "$rootless_pid" ]; then
    # runuser does not pass the signal on: the service itself, found by its own folder.
    pkill -f -- "--root $work/rootless/home/root" 2>/dev/null
    kill "$rootless_pid" 2>/dev/null; wait "$rootless_pid" 2>/dev/null
  fi
  # Layers podman left mounted under the folder, deepest first.
  awk -v w="$work" 'index($2, w) == 1 { print $2 }' /proc/self/mounts | sort -r |
    while read -r m; do umount -l "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP   # so that the EXIT trap cleans up then too
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
# Polls, never a fixed sleep: the machine may be loaded.
wait_for_socket () { # socket, seconds
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    curl -s --max-time 2 --unix-socket "$1" http://d/_ping 2>/dev/null | grep -q OK && return 0
    sleep 0.2
  done
  return 1
}

# ---- B: DOCKER_HOST names an engine Assay cannot use (nothing is ever sent to that address) ----
printf 'print(6 * 7)\n' > "$work/six.py"
check "DOCKER_HOST=tcp:// to another host: status says why, and that sessions fall back" bash -c "
  DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' sandbox status > '$work/status' &&
  grep -q 'not usable' '$work/status' && grep -q 'plain tcp:// to another machine' '$work/status' &&
  grep -q 'Sessions will use: bwrap' '$work/status' && grep -q 'with --backend docker they refuse' '$work/status' &&
  DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' sandbox status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"backend\"] == \"bwrap\" and s[\"fell_back\"] and s[\"docker_host\"] == \"tcp://198.51.100.1:2375\", s
assert not s[\"docker\"][\"usable\"] and \"refused\" in s[\"docker\"][\"reason\"], s'"
check "DOCKER_HOST=tcp://…: exec --backend docker refuses with the reason (exit 1), ask too (exit 5)" bash -c "
  DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' exec --backend docker '$work/six.py' > '$work/out' 2> '$work/err'; rc=\$?
  cat '$work/err'; [ \$rc -eq 1 ] && grep -q 'plain tcp://' '$work/err' && ! grep -q 42 '$work/out' &&
  { DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' ask --backend docker --provider recorded --transcript '$transcript' \
      --yes --out '$work/ask' 'Which region?' 2> '$work/err-ask'; rc=\$?; cat '$work/err-ask';
    [ \$rc -eq 5 ] && grep -q 'plain tcp://' '$work/err-ask'; }"
check "DOCKER_HOST=tcp://…: plain exec says it fell back to bubblewrap, then runs there" bash -c "
  DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' exec '$work/six.py' > '$work/out' 2> '$work/err'; rc=\$?
  cat '$work/err'; [ \$rc -eq 0 ] && grep -q '^42' '$work/out' &&
  grep -q 'the sandbox runs on bubblewrap, because' '$work/err' && grep -q 'plain tcp://' '$work/err'"
check "DOCKER_HOST naming a socket that does not answer, or an unknown scheme: said, refused when asked for" bash -c "
  python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' '$work/dead.sock' &&
  DOCKER_HOST=unix://$work/dead.sock '$cli' exec '$work/six.py' 2> '$work/err1' | grep -q '^42' &&
  grep -q 'does not answer' '$work/err1' &&
  ! DOCKER_HOST=unix://$work/dead.sock '$cli' exec --backend docker '$work/six.py' 2> '$work/err2' &&
  grep -q 'does not answer' '$work/err2' &&
  ! DOCKER_HOST=npipe:////./pipe/docker '$cli' exec --backend docker '$work/six.py' 2> '$work/err3' &&
  grep -q 'not an address Assay knows' '$work/err3'; cat '$work/err1' '$work/err2' '$work/err3'"

# ---- A: a rootful Podman of this test's own ----
if [ "$(id -u)" -ne 0 ] || ! command -v podman >/dev/null; then
  n=$((n + 1)); echo "not ok $n - podman is installed and this test runs as root (build-aux/install-deps.sh installs podman)"
  echo "1..$n"; exit 1
fi
mkdir -p "$work/root" "$work/runroot" "$work/tmp"
podman "${podman_options[@]}" system service --time=0 "unix://$work/podman.sock" > "$work/service.log" 2>&1 &
service_pid=$!
check "the rootful Podman service answers on its own socket" wait_for_socket "$work/podman.sock" 120
cat "$work/service.log" | sed 's/^/# service: /' | head -5
export DOCKER_HOST="unix://$work/podman.sock"
check "sandbox build imports the image into Podman (repo:tag, the tag call's blank answer)" bash -c "
  '$cli' sandbox build --backend docker > '$work/build.out' 2> '$work/build.err'; rc=\$?; tail -3 '$work/build.err'; cat '$work/build.out'
  [ \$rc -eq 0 ] && grep -q 'Engine: Podman' '$work/build.err' &&
  image=\$(sed -n 's/^docker: \\([^ ]*\\) and.*/\\1/p' '$work/build.out') &&
  curl -sf --unix-socket '$work/podman.sock' http://d/v1.41/images/\$image/json > /dev/null &&
  curl -sf --unix-socket '$work/podman.sock' http://d/v1.41/images/assay-sandbox:latest/json > /dev/null"
check "sandbox status names Podman, usable, with the image" bash -c "
  '$cli' sandbox status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
d = s[\"docker\"]
assert d[\"usable\"] and d[\"engine\"] == \"podman\" and d[\"image_present\"] and not d[\"rootless\"], d
assert s[\"backend\"] == \"docker\" and \"Podman\" in s[\"reason\"] and not s[\"fell_back\"], s'"

printf 'import os\nprint(os.getuid(), os.getcwd(), open("/proc/1/cmdline").read().split("\\0")[2])\n' > "$work/basic.py"
check "a basic cell: the kernel is PID 1, as a uid of its own (2147420000 and up), in /workspace" bash -c "
  '$cli' exec --backend docker --json '$work/basic.py' | tee /dev/stderr | grep -Eq '21474[2-8][0-9]{4} /workspace /opt/assay/kernel/assay_kernel.py'"
printf 'region,amount\nnorth,1\nsouth,2\n' > "$work/sales.csv"
printf 'import pandas as pd\ndf = pd.read_csv("/data/sales.csv")\nprint(df.amount.sum())\ndf.to_csv("/workspace/copy.csv", index=False)\ntry:\n    open("/data/sales.csv", "a")\nexcept OSError as e:\n    print("data read-only", e.errno)\n' > "$work/data.py"
check "a dataset read at /data (read-only) and an artifact written back" bash -c "
  '$cli' exec --backend docker --json --data '$work/sales.csv' --out '$work/artifacts' '$work/data.py' > '$work/data.jsonl' &&
  python3 - '$work/data.jsonl' '$work/artifacts' <<'PY'
import json, os, sys
cell = json.loads(open(sys.argv[1]).read())
text = ''.join(o.get('text', '') for o in cell['outputs'])
# EACCES (the file is root's) or EROFS (the mount): never written; the read-back checks the mount.
assert cell['status'] == 'ok' and text.startswith('3\n') and ('data read-only 13' in text or 'data read-only 30' in text), cell
art = cell['artifacts']
assert len(art) == 1 and art[0]['name'] == 'copy.csv' and os.path.dirname(art[0]['path']) == sys.argv[2], art
assert open(art[0]['path']).read() == 'region,amount\nnorth,1\nsouth,2\n'
PY"
printf 'import socket\nfor host in ("1.1.1.1", "127.0.0.1"):\n    try:\n        socket.create_connection((host, 80), timeout=3)\n        print("connected", host)\n    except OSError as e:\n        print("refused", host)\nprint(sorted(n for _, n in socket.if_nameindex()))\n' > "$work/net.py"
check "hostile: the network is off (connect fails, only lo)" bash -c "
  '$cli' exec --backend docker '$work/net.py' | tee /dev/stderr > '$work/net.out' &&
  grep -q 'refused 1.1.1.1' '$work/net.out' && grep -q 'refused 127.0.0.1' '$work/net.out' &&
  ! grep -q connected '$work/net.out' && grep -q \"\\['lo'\\]\" '$work/net.out'"
printf 'import numpy as np\nblocks = []\nwhile True:\n    blocks.append(np.ones(50_000_000, dtype=np.uint8))\n' > "$work/memory.py"
printf 'print("alive")\n' > "$work/after.py"
check "hostile: a memory bomb ends oom (not crashed), and the next cell runs in a new sandbox" bash -c "
  timeout 120 '$cli' exec --backend docker --memory 256 --timeout 30 --json '$work/memory.py' '$work/after.py' | tee /dev/stderr |
  python3 -c '
import json, sys
bomb, after = (json.loads(l) for l in sys.stdin)
assert bomb[\"status\"] == \"oom\" and bomb[\"state_lost\"], bomb
assert after[\"status\"] == \"ok\" and after[\"outputs\"][0][\"text\"] == \"alive\\n\", after'"
printf 'import os\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            import time; time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print("fork refused after", n, e.errno)\n' > "$work/fork.py"
check "hostile: a fork bomb is stopped by the process limit" bash -c "
  timeout 120 '$cli' exec --backend docker --timeout 30 --json '$work/fork.py' '$work/after.py' | tee /dev/stderr |
  python3 -c '
import json, re, sys
bomb, after = (json.loads(l) for l in sys.stdin)
text = \"\".join(o.get(\"text\", \"\") for o in bomb[\"outputs\"])
m = re.search(r\"fork refused after (\\d+) 11\", text)
assert bomb[\"status\"] == \"ok\" and m and int(m.group(1)) < 256, bomb
assert after[\"status\"] == \"ok\", after'"
printf 'import os\nfor path in ("/usr/evil", "/etc/evil", "/evil"):\n    try:\n        open(path, "w")\n        print("wrote", path)\n    except OSError as e:\n        print("refused", path, e.errno)\n' > "$work/root.py"
check "hostile: the root file system is read-only" bash -c "
  '$cli' exec --backend docker '$work/root.py' | tee /dev/stderr > '$work/root.out' &&
  [ \$(grep -c '^refused' '$work/root.out') -eq 3 ] && ! grep -q '^wrote' '$work/root.out'"
printf 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.1)\n' > "$work/stubborn.py"
printf 'import time\ntime.sleep(60)\n' > "$work/sleep.py"
check "kill and timeout: an interrupted cell keeps the state, a stubborn one is killed (Podman's 500, not 409)" bash -c "
  timeout 120 '$cli' exec --backend docker --timeout 2 --json '$work/sleep.py' '$work/stubborn.py' '$work/after.py' | tee /dev/stderr |
  python3 -c '
import json, sys
slept, stubborn, after = (json.loads(l) for l in sys.stdin)
assert slept[\"status\"] == \"timeout\" and not slept.get(\"state_lost\"), slept
assert stubborn[\"status\"] == \"timeout\" and stubborn[\"state_lost\"], stubborn
assert after[\"status\"] == \"ok\", after'
  left=\$(curl -s --unix-socket '$work/podman.sock' 'http://d/v1.41/containers/json?all=1&filters=%7B%22label%22%3A%5B%22assay.session%22%5D%7D')
  echo \"left: \$left\"; [ \"\$left\" = '[]' ]"
# The sandbox suite's own scenarios, unchanged, on this engine (its hardening test of the
# engine's own inspection is Docker's wording; the read-back covers Podman's).
check "the sandbox suite's Docker scenarios on Podman (test-sandbox)" env ASSAY_TEST_BACKEND=docker "$test_sandbox"
check "the Docker backend's tests on Podman (test-docker-backend, but its Docker-worded hardening)" \
  "$test_docker_backend" -s /assay/docker/backend/hardening

# ---- A rootless Podman on cgroup v1 cannot limit anything: refused, with the reason ----
if [ "$(stat -fc %T /sys/fs/cgroup)" = tmpfs ] && command -v newuidmap >/dev/null && command -v runuser >/dev/null; then
  user=assay-podtest
  id "$user" >/dev/null 2>&1 || useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
                                        --gid nogroup "$user" >/dev/null 2>&1
  grep -q "^$user:" /etc/subuid || usermod --add-subuids 300000-365535 --add-subgids 300000-365535 "$user"
  mkdir -p "$work/rootless/run" "$work/rootless/home"; chmod 700 "$work/rootless/run"
  chown -R "$user:nogroup" "$work/rootless"; chmod 755 "$work" "$work/rootless"
  runuser -u "$user" -- env -i HOME="$work/rootless/home" XDG_RUNTIME_DIR="$work/rootless/run" PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    podman --root "$work/rootless/home/root" --runroot "$work/rootless/run/runroot" --tmpdir "$work/rootless/run/tmp" \
           --cgroup-manager cgroupfs --events-backend file system service --time=0 \
           "unix://$work/rootless/run/podman.sock" > "$work/rootless.log" 2>&1 &
  rootless_pid=$!
  check "a rootless Podman service answers" wait_for_socket "$work/rootless/run/podman.sock" 120
  check "rootless Podman on cgroup v1: status and exec --backend docker refuse it with the reason" bash -c "
    export DOCKER_HOST=unix://$work/rootless/run/podman.sock
    '$cli' sandbox status > '$work/rl-status'; cat '$work/rl-status'
    grep -q 'Podman 4.* (rootless) on cgroup v1 cannot limit' '$work/rl-status' &&
    ! '$cli' exec --backend docker '$work/six.py' 2> '$work/rl-err' && cat '$work/rl-err' &&
    grep -q 'cannot limit the sandbox' '$work/rl-err'"
else
  n=$((n + 1)); echo "ok $n - rootless Podman on cgroup v1 # SKIP not a cgroup v1 host, or no newuidmap/runuser"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
