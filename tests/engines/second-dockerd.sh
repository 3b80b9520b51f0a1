# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the remote-engine test and benchmark: certificates made with openssl, and a second
# Docker daemon of the test's own (its own data and exec roots, no iptables, no bridge) that
# listens on a unix socket and on 127.0.0.1 with TLS, asking for a client certificate.
#   make_engine_certs DIR   DIR/certs (ca.pem, cert.pem, key.pem: what DOCKER_CERT_PATH names),
#                           DIR/server.pem and server-key.pem (for 127.0.0.1), DIR/expired.pem
#                           (the same name, expired in 2020), DIR/other-ca (a client whose CA
#                           is another), DIR/no-client (the CA without a client certificate)
#   start_second_dockerd DIR   sets d2_socket (unix://…), d2_tls_host (tcp://127.0.0.1:PORT), d2_pid
#   stop_second_dockerd
make_engine_certs () {
  local dir="$1"
  mkdir -p "$dir/certs" "$dir/other-ca" "$dir/no-client" "$dir/ca-db"
  (
    cd "$dir" &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca-key.pem -out certs/ca.pem -days 2 -subj "/CN=Assay test CA" &&
    openssl req -newkey rsa:2048 -nodes -keyout server-key.pem -out server.csr -subj "/CN=127.0.0.1" &&
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext &&
    openssl x509 -req -in server.csr -CA certs/ca.pem -CAkey ca-key.pem -CAcreateserial -out server.pem -days 2 -extfile server.ext &&
    openssl req -newkey rsa:2048 -nodes -keyout certs/key.pem -out client.csr -subj "/CN=analyst" &&
    printf 'extendedKeyUsage=clientAuth\n' > client.ext &&
    openssl x509 -req -in client.csr -CA certs/ca.pem -CAkey ca-key.pem -CAcreateserial -out certs/cert.pem -days 2 -extfile client.ext &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca/ca-key.pem -out other-ca/ca.pem -days 2 -subj "/CN=Another CA" &&
    cp certs/cert.pem certs/key.pem other-ca/ && cp certs/ca.pem no-client/ &&
    # An engine certificate that expired long ago: `openssl ca` is the one that takes dates.
    : > ca-db/index.txt && echo 01 > ca-db/serial &&
    printf '[ca]\ndefault_ca = test\n[test]\ndir = ./ca-db\ndatabase = $dir/index.txt\nserial = $dir/serial\nnew_certs_dir = $dir\ndefault_md = sha256\npolicy = any\n[any]\ncommonName = supplied\n' > ca.cnf &&
    openssl ca -batch -notext -config ca.cnf -cert certs/ca.pem -keyfile ca-key.pem \
      -startdate 20200101000000Z -enddate 20200102000000Z -in server.csr -out expired.pem -extfile server.ext
  ) > "$dir/openssl.log" 2>&1
}

start_second_dockerd () {
  local dir="$1" port deadline
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$dir/d2"
  echo '{}' > "$dir/d2/daemon.json"
  dockerd --config-file "$dir/d2/daemon.json" --data-root "$dir/d2/data" --exec-root "$dir/d2/exec" \
          --pidfile "$dir/d2/dockerd.pid" -H "unix://$dir/d2/docker.sock" -H "tcp://127.0.0.1:$port" \
          --tlsverify --tlscacert "$dir/certs/ca.pem" --tlscert "$dir/server.pem" --tlskey "$dir/server-key.pem" \
          --iptables=false --ip6tables=false --bridge=none --ip-masq=false --userland-proxy=false \
          > "$dir/d2/dockerd.log" 2>&1 &
  d2_pid=$!
  d2_socket="unix://$dir/d2/docker.sock"
  d2_tls_host="tcp://127.0.0.1:$port"
  deadline=$((SECONDS + 120))
  while [ $SECONDS -lt $deadline ]; do
    DOCKER_HOST="$d2_socket" docker version >/dev/null 2>&1 && return 0
    kill -0 "$d2_pid" 2>/dev/null || break
    sleep 0.5
  done
  cat "$dir/d2/dockerd.log"
  return 1
}

stop_second_dockerd () {
  [ -n "${d2_pid:-}" ] || return 0
  kill -TERM "$d2_pid" 2>/dev/null
  wait "$d2_pid" 2>/dev/null
  d2_pid=
}
