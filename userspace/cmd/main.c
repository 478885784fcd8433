// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof: the one user-facing command.  Subcommands are looked up in
 * lwprof_cmds[]; each one parses its own options and returns an exit status.
 */
#include <stdio.h>
#include <string.h>

#include "libexp/nearest.h"
#include "userspace/cmd/cmds.h"

static const struct lwprof_cmd lwprof_cmds[] = {
	{ "version", cmd_version, "show tool and module versions" },
	{ "ptime", cmd_ptime, "run a command and show its threads' microstate times" },
	{ "top", cmd_top, "live per-thread microstates (prstat -mL)" },
	{ "collect", cmd_collect, "record an experiment: clock and counter profiles" },
	{ "dump", cmd_dump, "print an experiment's records" },
	{ "print", cmd_print, "analyze experiments (er_print)" },
	{ "export", cmd_export, "write experiments as pprof, Perfetto, folded stacks or an html report" },
};

#define NCMDS (sizeof(lwprof_cmds) / sizeof(lwprof_cmds[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lwprof COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-10s %s\n", lwprof_cmds[i].name,
			lwprof_cmds[i].help);
	fprintf(f, "\nlwprof --version is lwprof version.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version"))
		argv[1] = "version";

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], lwprof_cmds[i].name))
			return lwprof_cmds[i].fn(argc - 1, argv + 1);

	{
		const char *best = exp_nearest_name(argv[1], &lwprof_cmds[0].name, NCMDS,
						    sizeof(lwprof_cmds[0]), NULL);

		if (best)
			fprintf(stderr, "lwprof: '%s' is not a command; did you mean %s? (lwprof --help)\n",
				argv[1], best);
		else
			fprintf(stderr, "lwprof: '%s' is not a command; see lwprof --help\n",
				argv[1]);
	}
	return 2;
}
