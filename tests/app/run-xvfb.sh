#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a GUI test in its own X server (Xvfb): run-xvfb.sh TEST [ARGS...]
exec xvfb-run -a -s "-screen 0 1600x1200x24 -nolisten tcp" "$@"
