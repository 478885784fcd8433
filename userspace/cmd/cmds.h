/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LWPROF_CMDS_H
#define LWPROF_CMDS_H

#define LWPROF_VERSION "0.1.0"

struct lwprof_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

int cmd_version(int argc, char **argv);
int cmd_ptime(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
