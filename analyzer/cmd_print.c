// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof print [COMMANDS] EXPERIMENT... [COMMANDS]: er_print.  Commands are
 * er_print's, written -name [ARG] on the command line, or "name [ARG]" one
 * a line in a -script file or on standard input.  With no command on the
 * command line, commands are read from standard input (a prompt when it
 * is a terminal); when none come, -functions is shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an.h"
#include "print.h"
#include "compute.h"

struct pcmd {
	const char *name;
	int nargs;
	const char *help;
};

static const struct pcmd pcmds[] = {
	{ "functions", 0, "functions with exclusive and inclusive metrics" },
	{ "fsingle", 1, "NAME: one function's metrics and facts" },
	{ "callers-callees", 0, "each function with its callers and callees" },
	{ "csingle", 1, "NAME: one function's callers and callees" },
	{ "calltree", 0, "the call tree" },
	{ "objects", 0, "load objects" },
	{ "lines", 0, "source lines" },
	{ "pcs", 0, "instructions (program counters)" },
	{ "source", 1, "NAME|FILE: annotated source" },
	{ "disasm", 1, "NAME: annotated disassembly" },
	{ "metrics", 1, "SPEC: metrics to show, e.g. e.%user:i.user:name (default: default)" },
	{ "metric_list", 0, "the metrics of these experiments" },
	{ "sort", 1, "SPEC: sort by this metric, e.g. i.user or name" },
	{ "limit", 1, "N: show at most N items (0: all)" },
	{ "thread_list", 0, "threads, numbered for thread_select" },
	{ "cpu_list", 0, "CPUs with samples" },
	{ "sample_list", 0, "samples: each second of each run, its packets and times" },
	{ "experiment_list", 0, "the experiments loaded" },
	{ "thread_select", 1, "LIST: all, or thread numbers like 1,3-4" },
	{ "cpu_select", 1, "LIST: all, or CPU numbers like 0,2-3" },
	{ "filters", 1, "EXPR: e.g. 'TSTAMP >= 1s && TSTAMP < 2s && inStack(\"foo\")', or none" },
	{ "statistics", 0, "precise microstate totals beside the sampled ones" },
	{ "header", 0, "what each experiment recorded, and how" },
	{ "overview", 0, "the total of every metric" },
	{ "printmode", 1, "text | csv | one delimiter character" },
	{ "outfile", 1, "FILE: write what follows to FILE (- is standard output)" },
	{ "script", 1, "FILE: run the commands in FILE" },
	{ "name", 1, "long | short: function names" },
	{ "inline", 1, "on | off: inlined calls as frames of their own (command line only)" },
	{ "help", 0, "this list" },
	{ "quit", 0, "stop reading commands" },
	{ "exit", 0, "stop reading commands" },
};

#define NPCMDS (sizeof(pcmds) / sizeof(pcmds[0]))

static const struct pcmd *find_cmd(const char *name)
{
	size_t i;

	while (*name == '-')
		name++;
	for (i = 0; i < NPCMDS; i++)
		if (!strcmp(name, pcmds[i].name))
			return &pcmds[i];
	return NULL;
}

static void help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lwprof print [-COMMAND [ARG]]... EXPERIMENT... [-COMMAND [ARG]]...\n\ncommands:\n");
	for (i = 0; i < NPCMDS; i++)
		fprintf(f, "  %-16s %s\n", pcmds[i].name, pcmds[i].help);
}

static int run_script(struct an *an, FILE *in, bool prompt, int depth);

static int set_outfile(struct an *an, const char *arg)
{
	FILE *f;

	if (!strcmp(arg, "-")) {
		if (an->out != stdout)
			fclose(an->out);
		an->out = stdout;
		return 0;
	}
	f = fopen(arg, "w");
	if (!f)
		return an_errf(an, -errno, "%s: %s", arg, strerror(errno));
	if (an->out != stdout)
		fclose(an->out);
	an->out = f;
	return 0;
}

/* Run one command; 1: quit. */
static int run(struct an *an, const struct pcmd *c, const char *arg, int depth)
{
	const char *n = c->name;
	int err = 0;

	if (!strcmp(n, "functions"))
		err = an_view_flat(an, AN_K_FUNC);
	else if (!strcmp(n, "objects"))
		err = an_view_flat(an, AN_K_OBJ);
	else if (!strcmp(n, "lines"))
		err = an_view_flat(an, AN_K_LINE);
	else if (!strcmp(n, "pcs"))
		err = an_view_flat(an, AN_K_PC);
	else if (!strcmp(n, "fsingle"))
		err = an_view_fsingle(an, arg);
	else if (!strcmp(n, "callers-callees"))
		err = an_view_cc(an, NULL);
	else if (!strcmp(n, "csingle"))
		err = an_view_cc(an, arg);
	else if (!strcmp(n, "calltree"))
		err = an_view_calltree(an);
	else if (!strcmp(n, "source"))
		err = an_view_source(an, arg);
	else if (!strcmp(n, "disasm"))
		err = an_view_disasm(an, arg);
	else if (!strcmp(n, "metrics")) {
		if (!strcmp(arg, "default"))
			an_v.ml.n = 0;
		else
			err = an_mlist_parse(an, arg, &an_v.ml);
		if (err)
			an_v.ml.n = 0;
	} else if (!strcmp(n, "metric_list")) {
		an_metric_list_help(an, an->out);
		fprintf(an->out, "\nCurrent metrics: ");
		if (an_v.ml.n)
			an_mlist_print(an, an->out, &an_v.ml);
		else
			fprintf(an->out, "default\n");
	} else if (!strcmp(n, "sort")) {
		err = an_msort_parse(an, arg, &an_v.sort);
		an_v.sort_set = !err;
	} else if (!strcmp(n, "limit")) {
		char *end;

		an_v.limit = strtol(arg, &end, 10);
		if (*end || an_v.limit < 0) {
			an_v.limit = 0;
			err = an_errf(an, -EINVAL, "limit '%s': not a number", arg);
		}
	} else if (!strcmp(n, "thread_list"))
		err = an_view_thread_list(an);
	else if (!strcmp(n, "cpu_list"))
		err = an_view_cpu_list(an);
	else if (!strcmp(n, "sample_list"))
		err = an_view_sample_list(an);
	else if (!strcmp(n, "experiment_list")) {
		for (size_t i = 0; i < an->exps.n; i++)
			fprintf(an->out, "%zu %s\n", i + 1,
				AN_VEC(an->exps, struct an_exp, i).name);
	} else if (!strcmp(n, "thread_select"))
		err = an_thread_select(an, arg);
	else if (!strcmp(n, "cpu_select"))
		err = an_cpu_select(an, arg);
	else if (!strcmp(n, "filters"))
		err = an_filter_set(an, arg);
	else if (!strcmp(n, "statistics"))
		err = an_view_statistics(an);
	else if (!strcmp(n, "header"))
		err = an_view_header(an);
	else if (!strcmp(n, "overview"))
		err = an_view_overview(an);
	else if (!strcmp(n, "printmode")) {
		if (!strcmp(arg, "text"))
			an_v.printmode = AN_PM_TEXT;
		else if (!strcmp(arg, "csv"))
			an_v.printmode = AN_PM_CSV;
		else if (strlen(arg) == 1) {
			an_v.printmode = AN_PM_DELIM;
			an_v.delim = arg[0];
		} else
			err = an_errf(an, -EINVAL, "printmode '%s': text, csv or one character",
				      arg);
	} else if (!strcmp(n, "outfile"))
		err = set_outfile(an, arg);
	else if (!strcmp(n, "script")) {
		FILE *f = depth < 8 ? fopen(arg, "r") : NULL;

		if (!f)
			return an_errf(an, -errno, "script %s: %s", arg,
				       depth < 8 ? strerror(errno) : "nested too deep");
		err = run_script(an, f, false, depth + 1);
		fclose(f);
	} else if (!strcmp(n, "name")) {
		if (!strcmp(arg, "long") || !strcmp(arg, "short"))
			an->name_long = arg[0] == 'l';
		else
			err = an_errf(an, -EINVAL, "name '%s': long or short", arg);
	} else if (!strcmp(n, "inline")) {
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			err = an_errf(an, -EINVAL, "inline '%s': on or off", arg);
		else if ((arg[1] == 'n') != an->inline_funcs)
			err = an_errf(an, -EINVAL,
				      "inline %s: give it on the command line, before the experiments are read",
				      arg);
	} else if (!strcmp(n, "help"))
		help(an->out);
	else if (!strcmp(n, "quit") || !strcmp(n, "exit"))
		return 1;
	fflush(an->out);
	return err;
}

/* Commands one a line: "name [ARG]"; '#' starts a comment line. */
static int run_script(struct an *an, FILE *in, bool prompt, int depth)
{
	char line[4096];
	int failed = 0, r;

	for (;;) {
		char *p = line, *name, *arg;
		const struct pcmd *c;
		size_t l;

		if (prompt) {
			fputs("(lwprof) ", stdout);
			fflush(stdout);
		}
		if (!fgets(line, sizeof(line), in))
			break;
		l = strlen(line);
		while (l && (line[l - 1] == '\n' || line[l - 1] == ' ' ||
			     line[l - 1] == '\r'))
			line[--l] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		name = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		arg = p;
		c = find_cmd(name);
		if (!c) {
			fprintf(stderr, "lwprof print: '%s' is not a command (help lists them)\n",
				name);
			failed = 1;
			continue;
		}
		if (c->nargs && !*arg) {
			fprintf(stderr, "lwprof print: %s needs an argument\n", c->name);
			failed = 1;
			continue;
		}
		an->nruns++;
		r = run(an, c, arg, depth);
		if (r == 1)
			break;
		if (r < 0) {
			fprintf(stderr, "lwprof print: %s\n", an->err);
			failed = 1;
		}
	}
	return failed ? -EINVAL : 0;
}

struct todo {
	const struct pcmd *c;
	const char *arg;
};

int cmd_print(int argc, char **argv)
{
	struct todo *todo = calloc(argc + 1, sizeof(*todo));
	int ntodo = 0, nexp = 0, i, err, status = 0;
	const char **exps = calloc(argc + 1, sizeof(*exps));
	bool from_stdin = false;
	struct an an;

	if (!todo || !exps) {
		fprintf(stderr, "lwprof print: out of memory\n");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		const struct pcmd *c;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			help(stdout);
			free(todo);
			free(exps);
			return 0;
		}
		if (!strcmp(argv[i], "-")) {
			from_stdin = true;
			continue;
		}
		if (argv[i][0] != '-') {
			exps[nexp++] = argv[i];
			continue;
		}
		c = find_cmd(argv[i]);
		if (!c) {
			fprintf(stderr, "lwprof print: '%s' is not a command (lwprof print -help)\n",
				argv[i]);
			free(todo);
			free(exps);
			return 2;
		}
		if (c->nargs && i + 1 >= argc) {
			fprintf(stderr, "lwprof print: %s needs an argument\n", argv[i]);
			free(todo);
			free(exps);
			return 2;
		}
		todo[ntodo].c = c;
		todo[ntodo++].arg = c->nargs ? argv[++i] : "";
	}
	if (!nexp) {
		for (i = 0; i < ntodo; i++)
			if (!strcmp(todo[i].c->name, "help")) {
				help(stdout);
				free(todo);
				free(exps);
				return 0;
			}
		fprintf(stderr, "lwprof print: no experiment (lwprof print [-COMMAND [ARG]]... EXPERIMENT...)\n");
		free(todo);
		free(exps);
		return 2;
	}
	if (an_init(&an)) {
		fprintf(stderr, "lwprof print: out of memory\n");
		free(todo);
		free(exps);
		return 1;
	}
	for (i = 0; i < ntodo; i++)
		if (!strcmp(todo[i].c->name, "inline"))
			an.inline_funcs = !strcmp(todo[i].arg, "on");
	err = 0;
	for (i = 0; i < nexp && !err; i++)
		err = an_load(&an, exps[i]);
	if (!err)
		err = an_finish(&an);
	if (err) {
		fprintf(stderr, "lwprof print: %s\n", an.err);
		status = 1;
		goto out;
	}
	for (i = 0; i < ntodo; i++) {
		int r = run(&an, todo[i].c, todo[i].arg, 0);

		an.nruns++;
		if (r == 1)
			break;
		if (r < 0) {
			fprintf(stderr, "lwprof print: %s\n", an.err);
			status = 1;
		}
	}
	if (!ntodo || from_stdin) {
		if (run_script(&an, stdin, isatty(0), 0))
			status = 1;
		if (!an.nruns && an_view_flat(&an, AN_K_FUNC) < 0) {
			fprintf(stderr, "lwprof print: %s\n", an.err);
			status = 1;
		}
	}
out:
	if (an.out != stdout)
		fclose(an.out);
	an_filter_free(&an);
	an_free(&an);
	memset(&an_v, 0, sizeof(an_v));
	an_v.delim = ',';
	free(todo);
	free(exps);
	return status;
}
