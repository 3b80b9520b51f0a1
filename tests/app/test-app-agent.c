/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"
#include "gui-test-util.h"
int main (int argc, char *argv[]) { gui_test_init (&argc, &argv); return g_test_run (); }
