/* SPDX-License-Identifier: GPL-2.0 */
/* lwprof-print's command (analyzer/cmd/print.c); lwprof print execs it. */
#ifndef LWPROF_PRINT_H
#define LWPROF_PRINT_H

/* argv[0] is the command's name; an exit status. */
int cmd_print(int argc, char **argv);

#endif
