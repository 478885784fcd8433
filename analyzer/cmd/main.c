// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof-print: the analyzer, a program of its own so that the lwprof
 * command needs none of its libraries (libdw, capstone, libstdc++) to
 * start.  lwprof print execs it with its arguments (userspace/cmd/cmd_print.c);
 * installed in $(LIBEXECDIR)/lwprof/.
 */
#include "analyzer/cmd/print.h"

int main(int argc, char **argv)
{
	return cmd_print(argc, argv);
}
