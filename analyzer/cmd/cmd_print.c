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

#include "analyzer/cmd/print.h"
#include "analyzer/export/export.h"
#include "analyzer/load/load.h"
#include "analyzer/viewmode/viewmode.h"
#include "libexp/nearest.h"
#include "libexp/progress.h"

struct prun;

struct pcmd {
	const char *name;
	int nargs;
	/* 0, a negative errno (the message in an->run->err), or 1: stop */
	int (*run)(struct prun *r, const char *arg);
	const char *help;
	int kind;	/* the flat views': AN_K_* */
	/*
	 * The records it needs decoded (AN_NEED_*): a view of metrics lists
	 * every function (line, ...) that any record reaches, with zeros
	 * where it has none of a metric, so it needs every kind.
	 */
	int need;
};

/*
 * What a command runs with: the experiments, the view settings, the
 * output, and the script nesting.
 */
struct prun {
	struct an *an;
	struct an_settings *vs;
	struct an_out *out;
	int depth;
	const struct pcmd *cmd;	/* the one running */
};

static int run_script(struct prun *r, FILE *in, bool prompt);
static void help(FILE *f);

/* -functions, -objects, -lines, -pcs */
static int c_flat(struct prun *r, const char *arg)
{
	return an_view_flat(r->an, r->vs, r->out, r->cmd->kind);
}

static int c_fsingle(struct prun *r, const char *arg)
{
	return an_view_fsingle(r->an, r->vs, r->out, arg);
}

static int c_cc(struct prun *r, const char *arg)
{
	return an_view_cc(r->an, r->vs, r->out, NULL);
}

static int c_csingle(struct prun *r, const char *arg)
{
	return an_view_cc(r->an, r->vs, r->out, arg);
}

static int c_calltree(struct prun *r, const char *arg)
{
	return an_view_calltree(r->an, r->vs, r->out);
}

static int c_source(struct prun *r, const char *arg)
{
	return an_view_source(r->an, r->vs, r->out, arg);
}

static int c_disasm(struct prun *r, const char *arg)
{
	return an_view_disasm(r->an, r->vs, r->out, arg);
}

static int c_metrics(struct prun *r, const char *arg)
{
	int err = 0;

	if (!strcmp(arg, "default"))
		r->vs->ml.n = 0;
	else
		err = an_mlist_parse(r->an, arg, &r->vs->ml);
	if (err)
		r->vs->ml.n = 0;
	return err;
}

static int c_metric_list(struct prun *r, const char *arg)
{
	struct an *an = r->an;
	FILE *f = r->out->f;

	an_metric_list_help(an, f);
	fprintf(f, "\nCurrent metrics: ");
	if (r->vs->ml.n)
		an_mlist_print(an, f, &r->vs->ml);
	else
		fprintf(f, "default\n");
	return 0;
}

static int c_sort(struct prun *r, const char *arg)
{
	int err = an_msort_parse(r->an, arg, &r->vs->sort);

	r->vs->sort_set = !err;
	return err;
}

static int c_limit(struct prun *r, const char *arg)
{
	char *end;

	r->vs->limit = strtol(arg, &end, 10);
	if (*end || r->vs->limit < 0) {
		r->vs->limit = 0;
		return an_errf(r->an, -EINVAL, "limit '%s': not a number", arg);
	}
	return 0;
}

static int c_thread_list(struct prun *r, const char *arg)
{
	return an_view_thread_list(r->an, r->vs, r->out);
}

static int c_cpu_list(struct prun *r, const char *arg)
{
	return an_view_cpu_list(r->an, r->vs, r->out);
}

static int c_sample_list(struct prun *r, const char *arg)
{
	return an_view_sample_list(r->an, r->vs, r->out);
}

static int c_experiment_list(struct prun *r, const char *arg)
{
	struct an *an = r->an;

	for (size_t i = 0; i < an->exps.n; i++)
		fprintf(r->out->f, "%zu %s\n", i + 1,
			AN_VEC(an->exps, struct an_exp, i).name);
	return 0;
}

static int c_thread_select(struct prun *r, const char *arg)
{
	return an_thread_select(r->an, &r->vs->filter, arg);
}

static int c_rank_select(struct prun *r, const char *arg)
{
	return an_rank_select(r->an, &r->vs->filter, arg);
}

static int c_mpi_stats(struct prun *r, const char *arg)
{
	return an_view_mpi_stats(r->an, r->vs, r->out);
}

static int c_omp_regions(struct prun *r, const char *arg)
{
	return an_view_omp_regions(r->an, r->vs, r->out);
}

static int c_omp_tasks(struct prun *r, const char *arg)
{
	return an_view_omp_tasks(r->an, r->vs, r->out);
}

static int c_mpi_matrix(struct prun *r, const char *arg)
{
	return an_view_mpi_matrix(r->an, r->vs, r->out);
}

static int c_rank_list(struct prun *r, const char *arg)
{
	return an_view_rank_list(r->an, r->vs, r->out);
}

static int c_cpu_select(struct prun *r, const char *arg)
{
	return an_cpu_select(r->an, &r->vs->filter, arg);
}

static int c_sample_select(struct prun *r, const char *arg)
{
	return an_sample_select(r->an, &r->vs->filter, arg);
}

static int c_filters(struct prun *r, const char *arg)
{
	return an_filter_set(r->an, &r->vs->filter, arg);
}

static int c_statistics(struct prun *r, const char *arg)
{
	return an_view_statistics(r->an, r->vs, r->out);
}

static int c_header(struct prun *r, const char *arg)
{
	return an_view_header(r->an, r->vs, r->out);
}

static int c_overview(struct prun *r, const char *arg)
{
	return an_view_overview(r->an, r->vs, r->out);
}

static int c_printmode(struct prun *r, const char *arg)
{
	if (!strcmp(arg, "text"))
		an_out_mode(r->out, AN_PM_TEXT, ',');
	else if (!strcmp(arg, "csv"))
		an_out_mode(r->out, AN_PM_CSV, ',');
	else if (strlen(arg) == 1)
		an_out_mode(r->out, AN_PM_DELIM, arg[0]);
	else
		return an_errf(r->an, -EINVAL, "printmode '%s': text, csv or one character",
			       arg);
	return 0;
}

static int c_outfile(struct prun *r, const char *arg)
{
	struct an_out *o = r->out;
	FILE *f;

	if (!strcmp(arg, "-")) {
		if (o->f != stdout)
			fclose(o->f);
		o->f = stdout;
		return 0;
	}
	f = fopen(arg, "w");
	if (!f)
		return an_errf(r->an, -errno, "%s: %s", arg, strerror(errno));
	if (o->f != stdout)
		fclose(o->f);
	o->f = f;
	return 0;
}

static int c_script(struct prun *r, const char *arg)
{
	struct prun sub = { r->an, r->vs, r->out, r->depth + 1, NULL };
	FILE *f = r->depth < 8 ? fopen(arg, "r") : NULL;
	int err;

	if (!f)
		return an_errf(r->an, -errno, "script %s: %s", arg,
			       r->depth < 8 ? strerror(errno) : "nested too deep");
	err = run_script(&sub, f, false);
	fclose(f);
	return err;
}

static int c_compare(struct prun *r, const char *arg)
{
	return an_cmp_parse(r->an, arg, &r->vs->compare);
}

static int c_name(struct prun *r, const char *arg)
{
	if (strcmp(arg, "long") && strcmp(arg, "short"))
		return an_errf(r->an, -EINVAL, "name '%s': long or short", arg);
	r->vs->name_long = arg[0] == 'l';
	return 0;
}

/* -inline is read before loading (cmd_print); later, only a no-op */
static int c_inline(struct prun *r, const char *arg)
{
	if (strcmp(arg, "on") && strcmp(arg, "off"))
		return an_errf(r->an, -EINVAL, "inline '%s': on or off", arg);
	if ((arg[1] == 'n') != r->an->inline_funcs)
		return an_errf(r->an, -EINVAL,
			       "inline %s: give it on the command line, before the experiments are read",
			       arg);
	return 0;
}

/* user | expert | machine: every sample's stack from now on */
static int c_viewmode(struct prun *r, const char *arg)
{
	int m = an_viewmode_parse(arg), err;

	if (m < 0)
		return an_errf(r->an, -EINVAL,
			       "viewmode '%s': user, expert or machine", arg);
	err = an_viewmode_set(r->an, m);
	return err ? err : an_filter_renew(r->an, &r->vs->filter);
}

/* traced calls (docs/design/tracing.md); kind: the view's variant */
static int c_heap(struct prun *r, const char *arg)
{
	return an_view_heap(r->an, r->vs, r->out, r->cmd->kind);
}

static int c_heapstat(struct prun *r, const char *arg)
{
	return an_view_heapstat(r->an, r->vs, r->out);
}

static int c_io(struct prun *r, const char *arg)
{
	return an_view_io(r->an, r->vs, r->out, r->cmd->kind);
}

static int c_iocallstack(struct prun *r, const char *arg)
{
	return an_view_iocallstack(r->an, r->vs, r->out);
}

static int c_iostat(struct prun *r, const char *arg)
{
	return an_view_iostat(r->an, r->vs, r->out);
}

static int c_help(struct prun *r, const char *arg)
{
	help(r->out->f);
	return 0;
}

static int c_quit(struct prun *r, const char *arg)
{
	return 1;
}

static const struct pcmd pcmds[] = {
	{ "functions", 0, c_flat, "functions with exclusive and inclusive metrics", AN_K_FUNC, AN_NEED_ALL },
	{ "fsingle", 1, c_fsingle, "NAME: one function's metrics and facts", 0, AN_NEED_ALL },
	{ "callers-callees", 0, c_cc, "each function with its callers and callees", 0, AN_NEED_ALL },
	{ "csingle", 1, c_csingle, "NAME: one function's callers and callees", 0, AN_NEED_ALL },
	{ "calltree", 0, c_calltree, "the call tree", 0, AN_NEED_ALL },
	{ "objects", 0, c_flat, "load objects", AN_K_OBJ, AN_NEED_ALL },
	{ "lines", 0, c_flat, "source lines", AN_K_LINE, AN_NEED_ALL },
	{ "pcs", 0, c_flat, "instructions (program counters)", AN_K_PC, AN_NEED_ALL },
	{ "source", 1, c_source, "NAME|FILE: annotated source", 0, AN_NEED_ALL },
	{ "disasm", 1, c_disasm, "NAME: annotated disassembly", 0, AN_NEED_ALL },
	{ "metrics", 1, c_metrics, "SPEC: metrics to show, e.g. e.%user:i.user:name (default: default)", 0, 0 },
	{ "metric_list", 0, c_metric_list, "the metrics of these experiments", 0, AN_NEED_ALL },
	{ "sort", 1, c_sort, "SPEC: sort by this metric, e.g. i.user or name", 0, 0 },
	{ "limit", 1, c_limit, "N: show at most N items (0: all)", 0, 0 },
	{ "thread_list", 0, c_thread_list, "threads, numbered for thread_select", 0, AN_NEED_ALL },
	{ "cpu_list", 0, c_cpu_list, "CPUs with samples", 0, AN_NEED_ALL },
	{ "sample_list", 0, c_sample_list, "samples: the spans between sample packets (or each second), their times and data", 0, AN_NEED_ALL },
	{ "experiment_list", 0, c_experiment_list, "the experiments loaded", 0, 0 },
	{ "thread_select", 1, c_thread_select, "LIST: all, or thread numbers like 1,3-4", 0, AN_NEED_ALL },
	{ "cpu_select", 1, c_cpu_select, "LIST: all, or CPU numbers like 0,2-3", 0, 0 },
	{ "sample_select", 1, c_sample_select, "LIST: all, or sample numbers like 1,3-4", 0, 0 },
	{ "filters", 1, c_filters, "EXPR: e.g. 'TSTAMP >= 1s && TSTAMP < 2s && inStack(\"foo\")', or none", 0, AN_NEED_ALL },
	{ "statistics", 0, c_statistics, "precise microstate totals beside the sampled ones", 0, AN_NEED_EVERY },
	{ "header", 0, c_header, "what each experiment recorded, and how", 0, 0 },
	{ "overview", 0, c_overview, "the total of every metric", 0, AN_NEED_ALL },
	{ "printmode", 1, c_printmode, "text | csv | one delimiter character", 0, 0 },
	{ "outfile", 1, c_outfile, "FILE: write what follows to FILE (- is standard output)", 0, 0 },
	{ "script", 1, c_script, "FILE: run the commands in FILE", 0, AN_NEED_EVERY },
	{ "compare", 1, c_compare, "on | delta | ratio | off: experiments side by side (flat views, callers-callees, call tree)", 0, 0 },
	{ "name", 1, c_name, "long | short: function names", 0, 0 },
	{ "viewmode", 1, c_viewmode, "user | expert | machine: call stacks as written, with the compiler's outlined functions, or as run (OpenMP)", 0, 0 },
	{ "inline", 1, c_inline, "on | off: inlined calls as frames of their own (command line only)", 0, 0 },
	{ "heap", 0, c_heap, "allocations and leaks by call stack (collect -H)", AN_HEAP_ALL, AN_NEED_HEAP },
	{ "leaks", 0, c_heap, "leaks (never freed) by call stack", AN_HEAP_LEAKS, AN_NEED_HEAP },
	{ "allocs", 0, c_heap, "allocations by call stack", AN_HEAP_ALLOCS, AN_NEED_HEAP },
	{ "heapstat", 0, c_heapstat, "heap statistics: totals, peak in use, sizes", 0, AN_NEED_HEAP },
	{ "ioactivity", 0, c_io, "I/O by file name (collect -i)", 0, AN_NEED_IO | AN_NEED_CALLS },
	{ "iodetail", 0, c_io, "I/O by file descriptor", 1, AN_NEED_IO | AN_NEED_CALLS },
	{ "iocallstack", 0, c_iocallstack, "I/O by call stack", 0, AN_NEED_IO | AN_NEED_CALLS },
	{ "iostat", 0, c_iostat, "I/O statistics by kind of call", 0, AN_NEED_IO | AN_NEED_CALLS },
	{ "omp_regions", 0, c_omp_regions, "OpenMP parallel regions by source line: instances, team, time, OpenMP Wait", 0, AN_NEED_TRACE },
	{ "omp_tasks", 0, c_omp_tasks, "OpenMP task constructs by source line: runs, time, mean, longest", 0, AN_NEED_TRACE },
	{ "mpi_stats", 0, c_mpi_stats, "MPI calls by function and by rank: time, messages, bytes, Late Sender, Wait at Barrier", 0, AN_NEED_MPI },
	{ "mpi_matrix", 0, c_mpi_matrix, "MPI bytes and messages each rank sent each rank", 0, AN_NEED_MPI },
	{ "rank_list", 0, c_rank_list, "the MPI ranks loaded, for rank_select", 0, AN_NEED_MPI },
	{ "rank_select", 1, c_rank_select, "LIST: all, or MPI ranks like 0,2-3", 0, AN_NEED_ALL },
	{ "help", 0, c_help, "this list", 0, 0 },
	{ "quit", 0, c_quit, "stop reading commands", 0, 0 },
	{ "exit", 0, c_quit, "stop reading commands", 0, 0 },
};

#define NPCMDS (sizeof(pcmds) / sizeof(pcmds[0]))

/*
 * A command by its name or, as er_print takes them, by a prefix of one
 * name alone ("func" is functions; "f" could be functions, fsingle or
 * filters: none, *amb set).
 */
static const struct pcmd *find_cmd_amb(const char *name, bool *amb)
{
	const struct pcmd *found = NULL;
	size_t i, len;

	while (*name == '-')
		name++;
	*amb = false;
	len = strlen(name);
	if (!len)
		return NULL;
	for (i = 0; i < NPCMDS; i++)
		if (!strcmp(name, pcmds[i].name))
			return &pcmds[i];
	for (i = 0; i < NPCMDS; i++) {
		if (strncmp(name, pcmds[i].name, len))
			continue;
		/* quit and exit: one command under two names */
		if (found && found->run != pcmds[i].run) {
			*amb = true;
			return NULL;
		}
		if (!found)
			found = &pcmds[i];
	}
	return found;
}

static const struct pcmd *find_cmd(const char *name)
{
	bool amb;

	return find_cmd_amb(name, &amb);
}

/*
 * Say that name is not a command (or, with ok, a setting): the commands
 * an ambiguous prefix could be, or the nearest name; hint: where the
 * list is.
 */
static void no_cmd(const char *prog, const char *name, const char *what,
		   bool (*ok)(const char *), const char *hint)
{
	const char *n = name, *best;
	size_t i, len;
	bool amb;

	while (*n == '-')
		n++;
	if (!find_cmd_amb(name, &amb) && amb) {
		fprintf(stderr, "%s: '%s' is ambiguous:", prog, name);
		len = strlen(n);
		for (i = 0; i < NPCMDS; i++)
			if (!strncmp(n, pcmds[i].name, len) && (!ok || ok(pcmds[i].name)))
				fprintf(stderr, " -%s", pcmds[i].name);
		fprintf(stderr, " (%s)\n", hint);
		return;
	}
	best = exp_nearest_name(name, &pcmds[0].name, NPCMDS, sizeof(pcmds[0]), ok);
	if (best)
		fprintf(stderr, "%s: '%s' is not a %s; did you mean -%s? (%s)\n",
			prog, name, what, best, hint);
	else
		fprintf(stderr, "%s: '%s' is not a %s (%s)\n", prog, name, what, hint);
}

static void help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lwprof print [-COMMAND [ARG]]... EXPERIMENT... [-COMMAND [ARG]]...\n\ncommands:\n");
	for (i = 0; i < NPCMDS; i++)
		fprintf(f, "  %-16s %s\n", pcmds[i].name, pcmds[i].help);
}

/* Run one command; 1: quit. */
static int run(struct prun *r, const struct pcmd *c, const char *arg)
{
	int err;

	r->cmd = c;
	err = c->run(r, arg);

	fflush(r->out->f);
	return err;
}

/* Commands one a line: "name [ARG]"; '#' starts a comment line. */
static int run_script(struct prun *pr, FILE *in, bool prompt)
{
	struct an *an = pr->an;
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
			no_cmd("lwprof print", name, "command", NULL, "help lists them");
			failed = 1;
			continue;
		}
		if (c->nargs && !*arg) {
			fprintf(stderr, "lwprof print: %s needs an argument\n", c->name);
			failed = 1;
			continue;
		}
		an->run->nruns++;
		r = run(pr, c, arg);
		if (r == 1)
			break;
		if (r < 0) {
			fprintf(stderr, "lwprof print: %s\n", an->run->err);
			failed = 1;
		}
	}
	return failed ? -EINVAL : 0;
}

struct todo {
	const struct pcmd *c;
	const char *arg;
};

/* lwprof export FORMAT -o FILE ...: lwprof execs us with --export first */
struct export_args {
	const struct an_export_ops *x;
	const char *out;
};

static void export_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lwprof export FORMAT -o FILE [-SETTING ARG]... EXPERIMENT...\n\nformats:\n");
	for (i = 0; i < an_export_nfmts; i++)
		fprintf(f, "  %-10s %s\n", an_export_fmts[i].name, an_export_fmts[i].help);
	fprintf(f, "\nsettings (as lwprof print's):\n");
	for (i = 0; i < NPCMDS; i++)
		if (an_export_setting(pcmds[i].name))
			fprintf(f, "  %-16s %s\n", pcmds[i].name, pcmds[i].help);
}

/*
 * argv: --export FORMAT -o FILE, in any order before the rest; *next is
 * the first argument after them.  0, 2 (a wrong command line) or 3
 * (help shown).
 */
static int export_args(int argc, char **argv, struct export_args *xa, int *next)
{
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			export_help(stdout);
			return 3;
		}
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			xa->out = argv[++i];
		} else if (!xa->x && argv[i][0] != '-') {
			xa->x = an_export_find(argv[i]);
			if (!xa->x) {
				const char *best = exp_nearest_name(argv[i], &an_export_fmts[0].name,
							   an_export_nfmts,
							   sizeof(an_export_fmts[0]), NULL);

				fprintf(stderr, "lwprof export: '%s' is not a format%s%s%s (lwprof export -h)\n",
					argv[i], best ? "; did you mean " : "",
					best ? best : "", best ? "?" : "");
				return 2;
			}
		} else {
			break;
		}
	}
	*next = i;
	if (!xa->x || !xa->out) {
		fprintf(stderr, "lwprof export: %s (lwprof export FORMAT -o FILE EXPERIMENT...)\n",
			xa->x ? "no -o FILE" : "no format");
		xa->x = NULL;
		return 2;
	}
	return 0;
}

/*
 * What the commands given read of the records (an->need): the union of
 * their own, and an export's; commands from standard input or a script
 * may need anything.
 */
static int todo_need(const struct todo *todo, int ntodo, bool all)
{
	int need = all ? AN_NEED_EVERY : 0, i;

	for (i = 0; i < ntodo; i++)
		need |= todo[i].c->need;
	return need;
}

int cmd_print(int argc, char **argv)
{
	struct todo *todo = calloc(argc + 1, sizeof(*todo));
	int ntodo = 0, nexp = 0, i, err, status = 0;
	const char **exps = calloc(argc + 1, sizeof(*exps));
	bool from_stdin = false;
	struct an an;
	struct an_run ctx = { .nwarn = 0 };
	struct an_settings vs = { .limit = 0 };
	struct an_out out = { .f = stdout };
	struct prun pr = { &an, &vs, &out, 0, NULL };
	struct export_args xa = { NULL };
	const char *prog = "lwprof print";
	struct exp_progress progress;

	an_out_mode(&out, AN_PM_TEXT, ',');
	if (!todo || !exps) {
		fprintf(stderr, "lwprof print: out of memory\n");
		return 1;
	}
	i = 1;
	if (argc > 1 && !strcmp(argv[1], "--export")) {
		prog = "lwprof export";
		status = export_args(argc, argv, &xa, &i);
		if (status) {
			free(todo);
			free(exps);
			return status == 3 ? 0 : status;
		}
	}
	for (; i < argc; i++) {
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
		if (!c || (xa.x && !an_export_setting(c->name))) {
			if (xa.x)
				no_cmd(prog, argv[i], "setting", an_export_setting,
				       "lwprof export -h");
			else
				no_cmd(prog, argv[i], "command", NULL, "lwprof print -help");
			free(todo);
			free(exps);
			return 2;
		}
		if (c->nargs && i + 1 >= argc) {
			fprintf(stderr, "%s: %s needs an argument\n", prog, argv[i]);
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
		fprintf(stderr, xa.x ? "lwprof export: no experiment (lwprof export FORMAT -o FILE EXPERIMENT...)\n" :
			"lwprof print: no experiment (lwprof print [-COMMAND [ARG]]... EXPERIMENT...)\n");
		free(todo);
		free(exps);
		return 2;
	}
	if (an_init(&an, &ctx)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		free(todo);
		free(exps);
		return 1;
	}
	for (i = 0; i < ntodo; i++)
		if (!strcmp(todo[i].c->name, "inline"))
			an.inline_funcs = !strcmp(todo[i].arg, "on");
	an.need = todo_need(todo, ntodo,
			    (!xa.x && !ntodo) || from_stdin || getenv("LWPROF_NEED_ALL"));
	if (xa.x)
		an.need |= xa.x->need;
	/* reading and unwinding: a progress line on a terminal, gone after */
	exp_progress_init(&progress, 2, prog);
	ctx.progress = &progress;
	err = 0;
	for (i = 0; i < nexp && !err; i++)
		err = an_load(&an, exps[i]);
	if (!err)
		err = an_finish(&an);
	/* er_print's default: the stacks as the programmer wrote them */
	if (!err)
		err = an_viewmode_set(&an, AN_VM_USER);
	exp_progress_end(&progress);
	ctx.progress = NULL;
	if (err) {
		fprintf(stderr, "%s: %s\n", prog, ctx.err);
		status = 1;
		goto out;
	}
	for (i = 0; i < ntodo; i++) {
		int r = run(&pr, todo[i].c, todo[i].arg);

		ctx.nruns++;
		if (r == 1)
			break;
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", prog, ctx.err);
			status = 1;
		}
	}
	if (xa.x) {
		ctx.progress = &progress;	/* the bytes written */
		err = status ? 0 : an_export_run(&an, &vs, xa.x, xa.out);
		ctx.progress = NULL;
		if (err) {
			fprintf(stderr, "lwprof export: %s\n", ctx.err);
			status = 1;
		}
	} else if (!ntodo || from_stdin) {
		if (run_script(&pr, stdin, isatty(0)))
			status = 1;
		if (!ctx.nruns && an_view_flat(&an, &vs, &out, AN_K_FUNC) < 0) {
			fprintf(stderr, "lwprof print: %s\n", ctx.err);
			status = 1;
		}
	}
out:
	if (out.f != stdout)
		fclose(out.f);
	an_filter_free(&vs.filter);
	an_mlist_free(&vs.ml);
	an_viewmode_free(&an);
	an_free(&an);
	free(todo);
	free(exps);
	return status;
}
