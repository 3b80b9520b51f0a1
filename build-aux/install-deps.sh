#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what Assay needs on Debian 12 / Ubuntu, and starts the Docker daemon when no
# init system does (containers, CI). Safe to run again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

PACKAGES=(
  # build
  meson ninja-build pkg-config gcc clang libclang-rt-14-dev
  libglib2.0-dev libjson-glib-dev libcurl4-openssl-dev libuchardet-dev zlib1g-dev
  # reports: cairo + Pango draw the PDF, md4c reads the model's Markdown, DejaVu has Cyrillic
  libcairo2-dev libpango1.0-dev libmd4c-dev fonts-dejavu-core
  # the reproducible bundle is a zip
  libzip-dev
  # the Excel workbook
  libxlsxwriter-dev
  # databases: PostgreSQL, MySQL/MariaDB and SQLite clients
  libpq-dev libmariadb-dev libsqlite3-dev
  # the app
  libgtk-4-dev libadwaita-1-dev libpoppler-glib-dev libgtksourceview-5-dev libsecret-1-dev xauth
  # the sandbox
  docker.io bubblewrap libseccomp-dev mmdebstrap debian-archive-keyring tar ca-certificates iptables
  # tests
  python3 xvfb curl poppler-utils python3-nbformat python3-jsonschema dbus-x11 gnome-keyring time procps
  # the Podman test runs a rootful service of its own, and a rootless one as a test user;
  # catatonit is the container init Debian's podman does not bring in when tini is installed
  podman catatonit uidmap
  # a Docker engine elsewhere: TLS through GIO (glib-networking), ssh through the system's
  # client; the remote-engine test starts its own sshd and makes its certificates with openssl
  glib-networking openssh-client openssh-server openssl
  # the datasets benchmark compares with pandas on the host; the bundle's test runs its
  # analysis.py there too
  python3-pandas python3-matplotlib
  # the Excel export is read back with openpyxl
  python3-openpyxl
  # the database tests start their own PostgreSQL 15 and MariaDB servers in temporary folders;
  # the database benchmark compares with pandas.read_sql over psycopg2
  postgresql-15 mariadb-server python3-psycopg2 python3-mysqldb
  # packaging: translations, and the validators of data/; groff renders the man page's test
  gettext desktop-file-utils appstream libglib2.0-bin libgdk-pixbuf2.0-bin librsvg2-common groff-base
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The Docker daemon: ask systemd when it runs, else start dockerd ourselves.
if ! curl -s --max-time 3 --unix-socket /var/run/docker.sock http://localhost/_ping >/dev/null 2>&1; then
  if [ -d /run/systemd/system ]; then
    $SUDO systemctl start docker || true
  else
    echo "Starting dockerd"
    $SUDO sh -c 'nohup dockerd >/var/log/assay-dockerd.log 2>&1 &'
  fi
  for _ in $(seq 1 60); do
    curl -s --max-time 2 --unix-socket /var/run/docker.sock http://localhost/_ping >/dev/null 2>&1 && break
    sleep 1
  done
  if ! curl -s --max-time 3 --unix-socket /var/run/docker.sock http://localhost/_ping >/dev/null 2>&1; then
    echo "warning: the Docker daemon does not answer; Assay will use bubblewrap" >&2
  fi
fi
