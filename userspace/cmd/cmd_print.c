// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof print: the analyzer is its own program, lwprof-print (it needs
 * libdw, capstone and libstdc++, which the other commands do not load).
 * It is looked for beside this program (the build tree), then in
 * ../libexec/lwprof/ from it (make install), and run with the arguments.
 * lwprof export is the same program, told so by a first argument of
 * --export.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/cmd/cmds.h"
#include "userspace/collect/collect.h"

#define PRINT_PROG "lwprof-print"

static const char *const print_dirs[] = { "", "../libexec/lwprof/" };

/* Exec the analyzer with argv (argv[0] replaced); only returns on failure. */
static int exec_print(const char *cmd, char **argv)
{
	char path[PATH_MAX * 2];
	int err;

	err = lwprof_selfdir_find(PRINT_PROG, print_dirs, 2, X_OK, path,
				  sizeof(path));
	if (err == -ENOENT) {
		/* path: the first place; the second is under it */
		path[strlen(path) - strlen(PRINT_PROG)] = 0;
		fprintf(stderr, "lwprof %s: the analyzer is not installed: no %s%s nor %s%s%s\n",
			cmd, path, PRINT_PROG, path, print_dirs[1], PRINT_PROG);
		return 1;
	}
	if (err) {
		fprintf(stderr, "lwprof %s: /proc/self/exe: %s\n", cmd, strerror(-err));
		return 1;
	}
	argv[0] = PRINT_PROG;
	execv(path, argv);
	fprintf(stderr, "lwprof %s: %s: %s\n", cmd, path, strerror(errno));
	return 1;
}

int cmd_print(int argc, char **argv)
{
	return exec_print("print", argv);
}

/* lwprof export FORMAT -o FILE ...: lwprof-print --export FORMAT ... */
int cmd_export(int argc, char **argv)
{
	char **xargv = calloc(argc + 2, sizeof(*xargv));
	int r;

	if (!xargv) {
		fprintf(stderr, "lwprof export: out of memory\n");
		return 1;
	}
	xargv[0] = argv[0];
	xargv[1] = "--export";
	memcpy(xargv + 2, argv + 1, (argc - 1) * sizeof(*xargv));
	r = exec_print("export", xargv);
	free(xargv);
	return r;
}
