#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a GUI test in a fresh Xvfb display with its own data folder (sessions, keyrings).
#   run-gui-test.sh [--keyring] TEST [ARGS...]
# --keyring: also a private D-Bus session with gnome-keyring-daemon unlocked (password on
# stdin), so libsecret talks to a real keyring.
keyring=0
if [ "$1" = "--keyring" ]; then
  keyring=1
  shift
fi
XDG_DATA_HOME=$(mktemp -d "${TMPDIR:-/tmp}/assay-gui-data-XXXXXX")
XDG_CONFIG_HOME="$XDG_DATA_HOME/config"
XDG_CACHE_HOME="$XDG_DATA_HOME/cache"
XDG_RUNTIME_DIR="$XDG_DATA_HOME/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_DATA_HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_RUNTIME_DIR
if [ $keyring = 1 ]; then
  xvfb-run -a -s "-screen 0 1600x1000x24" dbus-run-session -- sh -c \
    'printf test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
else
  xvfb-run -a -s "-screen 0 1600x1000x24" "$@"
fi
status=$?
rm -rf "$XDG_DATA_HOME"
exit $status
