// SPDX-License-Identifier: GPL-2.0
#include "cli.h"
int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return 1; }
