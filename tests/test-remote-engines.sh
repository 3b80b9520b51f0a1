#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The sandbox on a Docker engine elsewhere, for real: a second Docker daemon that this test
# starts (its own data and exec roots, no iptables, no bridge; tests/engines/second-dockerd.sh)
# on 127.0.0.1 with TLS, asking for a client certificate from a CA the test makes with openssl;
# the sandbox image sent to it by `sandbox build`; the same engine over ssh (an sshd the test
# starts on 127.0.0.1, `docker system dial-stdio` on the far side) and over plain tcp:// on
# loopback. The datasets reach the engine through its archive endpoint, never a bind mount: what
# the sandbox shows of /data names no folder of this machine. Wrong, expired and missing
# certificates, refused ports and keys are plain messages; nothing is left behind.
# Usage: test-remote-engines.sh ASSAY_CLI TEST_SANDBOX SOURCE_DIR
set -uo pipefail
cli="$1"; test_sandbox="$2"; source_dir="$3"
proxy="$source_dir/tests/engines/tls_proxy.py"
. "$source_dir/tests/engines/second-dockerd.sh"
work=$(mktemp -d /tmp/assay-remote-XXXXXX)
pids=()
cleanup () {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  [ -f "$work/sshd.pid" ] && kill "$(cat "$work/sshd.pid")" 2>/dev/null
  stop_second_dockerd
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
n=0; failed=0
check () { # name, command...
  local name="$1"; shift
  n=$((n + 1))
  if "$@" >"$work/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$work/log"; failed=$((failed + 1)); fi
}
wait_for_file () { # file, seconds
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do [ -s "$1" ] && return 0; sleep 0.1; done
  return 1
}
free_port () { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# ---- certificates, and the second engine ----
make_engine_certs "$work" || { echo "Bail out! openssl could not make the certificates"; cat "$work/openssl.log"; exit 1; }
start_second_dockerd "$work" || { echo "Bail out! the second Docker daemon did not start"; exit 1; }
engine_socket="$work/d2/docker.sock"
tls_host="$d2_tls_host"
# The tunnels' sockets go under TMPDIR: checked empty at the end.
mkdir -p "$work/tmp"; export TMPDIR="$work/tmp"

# Faults the real engine cannot show: an expired engine certificate, and a plain listener.
python3 "$proxy" "$work/certs/ca.pem" "$work/expired.pem" "$work/server-key.pem" "$engine_socket" "$work/expired.port" \
  2> "$work/expired-proxy.log" &
pids+=($!)
python3 "$proxy" --plain "$engine_socket" "$work/plain.port" 2> "$work/plain-proxy.log" &
pids+=($!)
wait_for_file "$work/expired.port" 30 && wait_for_file "$work/plain.port" 30 ||
  { echo "Bail out! the test's listeners did not start"; cat "$work/expired-proxy.log" "$work/plain-proxy.log"; exit 1; }
expired_host="tcp://127.0.0.1:$(cat "$work/expired.port")"
plain_host="tcp://127.0.0.1:$(cat "$work/plain.port")"

# ---- an sshd on 127.0.0.1 with a key of this test's ----
ssh_port=$(free_port)
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$work/client_key" &&
  ssh-keygen -q -t ed25519 -N '' -f "$work/stranger_key" && cp "$work/client_key.pub" "$work/authorized_keys" ||
  { echo "Bail out! ssh-keygen failed"; exit 1; }
cat > "$work/sshd_config" <<CONF
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $work/sshd.pid
SetEnv DOCKER_HOST=unix://$engine_socket
CONF
echo "[127.0.0.1]:$ssh_port $(cat "$work/host_key.pub")" > "$work/known_hosts"
for who in client stranger; do
  cat > "$work/ssh_config_$who" <<CONF
Host *
  IdentityFile $work/${who}_key
  IdentitiesOnly yes
  UserKnownHostsFile $work/known_hosts
  StrictHostKeyChecking yes
CONF
done
mkdir -p /run/sshd 2>/dev/null
/usr/sbin/sshd -f "$work/sshd_config" -E "$work/sshd.log" || { echo "Bail out! sshd did not start"; cat "$work/sshd.log"; exit 1; }
ssh_host="ssh://$(id -un)@127.0.0.1:$ssh_port"
ssh_client="ssh -F $work/ssh_config_client"

printf 'region,amount\nnorth,120\nsouth,80\n' > "$work/sales.csv"
cat > "$work/data.py" <<'PY'
import os
import pandas as pd
print("sum", pd.read_csv("/data/sales.csv")["amount"].sum())
print("writable", os.access("/data/sales.csv", os.W_OK))
print("mount", [line.split()[3] for line in open("/proc/self/mountinfo") if line.split()[4] == "/data"])
PY
# What the cell shows: the numbers, /data read-only, and a mount of the engine's own volume
# (in the engine's data root, here under $work/d2), never the session's data folder.
data_ok () { # output
  grep -q '^sum 200$' "$1" && grep -q '^writable False$' "$1" && grep -q "^mount \['$work/d2/data/volumes/assay-" "$1" &&
    ! grep '^mount' "$1" | grep -q "/var/tmp/\|/sessions/\|$HOME"
}

# ---- TLS ----
tls_env=(DOCKER_HOST="$tls_host" DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH="$work/certs")
check "TLS: sandbox status says the new engine lacks the image" bash -c "
  env ${tls_env[*]} '$cli' sandbox status > '$work/status'; cat '$work/status';
  grep -q 'at $tls_host (DOCKER_HOST)' '$work/status' && grep -qi 'assay-cli sandbox build' '$work/status'"
check "TLS: sandbox build sends the image to the engine, with its progress" bash -c "
  env ${tls_env[*]} '$cli' sandbox build --backend docker > '$work/build' 2>&1; rc=\$?; cat '$work/build'; [ \$rc -eq 0 ] &&
  grep -q 'Engine: Docker .* at $tls_host' '$work/build' &&
  [ \$(grep -c 'Sending the image to Docker' '$work/build') -ge 5 ] && grep -q 'Docker image ready' '$work/build' &&
  DOCKER_HOST=$d2_socket docker image inspect assay-sandbox:latest > /dev/null"
check "TLS: sandbox status finds the engine at the tcp:// address, usable, with the image" bash -c "
  env ${tls_env[*]} '$cli' sandbox status > '$work/status' && cat '$work/status' &&
  grep -q 'at $tls_host (DOCKER_HOST)' '$work/status' && grep -q 'Sessions will use: docker' '$work/status' &&
  env ${tls_env[*]} '$cli' sandbox status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"backend\"] == \"docker\" and s[\"docker\"][\"usable\"], s
assert s[\"docker\"][\"remote\"] == \"$tls_host\" and s[\"docker\"][\"socket\"] is None, s[\"docker\"]'"
exec_data () { # environment...
  env "$@" "$cli" exec --backend docker --data "$work/sales.csv" "$work/data.py" > "$work/out" 2>&1; local rc=$?
  cat "$work/out"; [ $rc -eq 0 ] && data_ok "$work/out"
}
check "TLS: a dataset is sent through the archive endpoint: read in the cell, read-only, no host folder in mountinfo" \
  exec_data "${tls_env[@]}"
check "TLS: the sandbox suite's Docker scenarios through the tunnel (test-sandbox)" \
  env "${tls_env[@]}" ASSAY_TEST_BACKEND=docker "$test_sandbox"
check "TLS: an engine certificate from another CA is refused, in words (exit 1)" bash -c "
  DOCKER_HOST='$tls_host' DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH='$work/other-ca' '$cli' exec --backend docker '$work/data.py' 2> '$work/err'; rc=\$?
  cat '$work/err'; [ \$rc -eq 1 ] && grep -q 'Cannot reach the Docker engine at $tls_host' '$work/err' &&
  grep -qi 'certificate' '$work/err'"
check "TLS: an expired engine certificate is refused, in words (exit 1)" bash -c "
  DOCKER_HOST='$expired_host' DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH='$work/certs' '$cli' exec --backend docker '$work/data.py' 2> '$work/err'; rc=\$?
  cat '$work/err'; [ \$rc -eq 1 ] && grep -q 'Cannot reach the Docker engine at $expired_host' '$work/err' &&
  grep -q 'certificate expired on 2020-01-02' '$work/err'"
printf 'import time\ntime.sleep(40)\nprint("after 40 s")\n' > "$work/quiet.py"
check "TLS: a cell quiet for 40 s keeps its connection (no idle timeout on a carried connection)" bash -c "
  env ${tls_env[*]} '$cli' exec --backend docker --timeout 120 '$work/quiet.py' > '$work/out' 2>&1; rc=\$?
  cat '$work/out'; [ \$rc -eq 0 ] && grep -q '^after 40 s$' '$work/out'"
check "TLS: a missing CA certificate or client certificate is named" bash -c "
  DOCKER_HOST='$tls_host' DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH='$work/nowhere' '$cli' exec --backend docker '$work/data.py' 2> '$work/err1';
  DOCKER_HOST='$tls_host' DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH='$work/no-client' '$cli' exec --backend docker '$work/data.py' 2> '$work/err2';
  cat '$work/err1' '$work/err2';
  grep -q \"CA certificate $work/nowhere/ca.pem\" '$work/err1' && grep -q \"client certificate $work/no-client/cert.pem\" '$work/err2'"
check "TLS asked for but the listener is plain: refused (no clear text sent as TLS)" bash -c "
  DOCKER_HOST='$plain_host' DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH='$work/certs' '$cli' exec --backend docker '$work/data.py' 2> '$work/err'; rc=\$?
  cat '$work/err'; [ \$rc -eq 1 ] && grep -q 'Cannot reach the Docker engine at $plain_host' '$work/err'"

# ---- the docker CLI's contexts (made by `docker context create`, in its own format) ----
mkdir -p "$work/dockercfg"
check "a docker context: made by the docker CLI, used when current (config.json) or named (DOCKER_CONTEXT)" bash -c "
  export DOCKER_CONFIG='$work/dockercfg'; unset DOCKER_HOST DOCKER_TLS_VERIFY DOCKER_CERT_PATH
  docker context create build --docker 'host=$tls_host,ca=$work/certs/ca.pem,cert=$work/certs/cert.pem,key=$work/certs/key.pem' >/dev/null &&
  docker context create loose --docker 'host=$tls_host,skip-tls-verify=true' >/dev/null &&
  docker context use build >/dev/null &&
  '$cli' sandbox status > '$work/status' && cat '$work/status' &&
  grep -q 'at $tls_host (docker context “build”)' '$work/status' && grep -q 'Sessions will use: docker' '$work/status' &&
  '$cli' sandbox status --json | python3 -c 'import json, sys; s = json.load(sys.stdin); assert s[\"docker_context\"] == \"build\" and s[\"docker\"][\"remote\"] == \"$tls_host\", s' &&
  '$cli' exec --backend docker --data '$work/sales.csv' '$work/data.py' > '$work/out' 2>&1 && cat '$work/out' && grep -q '^sum 200$' '$work/out' &&
  docker context use default >/dev/null &&
  DOCKER_CONTEXT=build '$cli' exec --backend docker --data '$work/sales.csv' '$work/data.py' > '$work/out2' 2>&1; cat '$work/out2'
  grep -q '^sum 200$' '$work/out2'"
check "docker contexts: an unknown one, and one that skips the certificate check, are refused in words" bash -c "
  export DOCKER_CONFIG='$work/dockercfg'; unset DOCKER_HOST DOCKER_TLS_VERIFY DOCKER_CERT_PATH
  DOCKER_CONTEXT=nowhere '$cli' exec --backend docker '$work/data.py' 2> '$work/err1'; rc1=\$?
  DOCKER_CONTEXT=loose '$cli' exec --backend docker '$work/data.py' 2> '$work/err2'; rc2=\$?
  cat '$work/err1' '$work/err2'; [ \$rc1 -eq 1 ] && [ \$rc2 -eq 1 ] &&
  grep -q 'there is no docker context “nowhere”' '$work/err1' && grep -q 'SkipTLSVerify' '$work/err2'"
check "DOCKER_HOST comes before the current context, as for the docker CLI" bash -c "
  export DOCKER_CONFIG='$work/dockercfg'; docker context use build >/dev/null
  DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' sandbox status > '$work/status'; cat '$work/status'
  docker context use default >/dev/null
  grep -q 'DOCKER_HOST=tcp://198.51.100.1:2375 is refused' '$work/status'"

# ---- plain tcp:// on this machine ----
check "plain tcp:// on loopback works, the dataset sent as to any engine elsewhere" \
  exec_data DOCKER_HOST="$plain_host"
check "plain tcp:// to another machine is refused with the reason, and never contacted" bash -c "
  DOCKER_HOST=tcp://198.51.100.1:2375 '$cli' exec --backend docker '$work/data.py' 2> '$work/err'; rc=\$?
  cat '$work/err'; [ \$rc -eq 1 ] && grep -q 'neither encrypted nor authenticated' '$work/err' && grep -q 'DOCKER_TLS_VERIFY' '$work/err'"

# ---- ssh ----
check "ssh: sandbox status finds the engine at the ssh:// address" bash -c "
  DOCKER_HOST='$ssh_host' ASSAY_SSH_COMMAND='$ssh_client' '$cli' sandbox status > '$work/status'; cat '$work/status';
  grep -q 'at $ssh_host (DOCKER_HOST)' '$work/status' && grep -q 'Sessions will use: docker' '$work/status'"
check "ssh: a dataset is sent through the archive endpoint and read in the cell" \
  exec_data DOCKER_HOST="$ssh_host" ASSAY_SSH_COMMAND="$ssh_client"
check "ssh: the datasets-added-later and datasets scenarios through ssh (test-sandbox)" \
  env DOCKER_HOST="$ssh_host" ASSAY_SSH_COMMAND="$ssh_client" ASSAY_TEST_BACKEND=docker "$test_sandbox" \
  -p /assay/sandbox/docker/datasets -p /assay/sandbox/docker/datasets-added-later
check "ssh: a refused port and a key the server does not know are ssh's own words (exit 1)" bash -c "
  DOCKER_HOST='ssh://$(id -un)@127.0.0.1:$(free_port)' ASSAY_SSH_COMMAND='$ssh_client' '$cli' exec --backend docker '$work/data.py' 2> '$work/err1'; rc1=\$?
  DOCKER_HOST='$ssh_host' ASSAY_SSH_COMMAND='ssh -F $work/ssh_config_stranger' '$cli' exec --backend docker '$work/data.py' 2> '$work/err2'; rc2=\$?
  cat '$work/err1' '$work/err2'; [ \$rc1 -eq 1 ] && [ \$rc2 -eq 1 ] &&
  grep -q 'Connection refused' '$work/err1' && grep -q 'Permission denied' '$work/err2'"
check "ssh: no ssh process of Assay's is left (its shared connection ends with the process)" bash -c "
  ! pgrep -af 'ssh -F $work/ssh_config' | grep -v pgrep"

# ---- nothing left behind ----
check "nothing left: no sandbox container or volume on the engine, no tunnel socket" bash -c "
  left=\$(DOCKER_HOST=$d2_socket docker ps -aq --filter label=assay.session | wc -l) ; vols=\$(DOCKER_HOST=$d2_socket docker volume ls -q --filter label=assay.session | wc -l)
  echo \"left: \$left containers, \$vols volumes\"; ls -A '$work/tmp' | grep 'assay-docker' ; [ \"\$left \$vols\" = '0 0' ] &&
  [ -z \"\$(ls -A '$work/tmp' | grep '^assay-docker-')\" ]"

echo "1..$n"
[ $failed -eq 0 ]
