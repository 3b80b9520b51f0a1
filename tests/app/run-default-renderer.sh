#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a GUI test's runner on GTK's default renderer: without GSK_RENDERER, which the tests'
# environment sets to cairo. GTK 4.8 then draws with GL, under Xvfb on Mesa's llvmpipe, where
# frames are slow and follow each other: what a VM, a remote desktop or a laptop without GPU
# acceleration shows the analyst.
#   run-default-renderer.sh RUNNER [ARGS...]
unset GSK_RENDERER
exec "$@"
