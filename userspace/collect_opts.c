// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof collect's command line.  collect_parse() returns 0 to run, -1 when
 * it already did what was asked (usage, the counter lists: exit 0), or the
 * exit status of a usage error (2) after a one-line message.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "collect.h"
#include "usage.h"

void collect_usage(FILE *f)
{
	struct timespec res = { 0, 1 };

	clock_getres(CLOCK_MONOTONIC, &res);
	fprintf(f,
		"usage: lwprof collect [options] CMD [ARGS...]   record CMD and its descendants\n"
		"       lwprof collect [options] -P PID [-t DUR]  record a running process\n"
		"       lwprof collect [options] -a [-t DUR | CMD [ARGS...]]  the whole machine\n"
		"       lwprof collect -h                         list the counters of this machine\n"
		"options:\n"
		"  -p on|hi|lo|off|INTERVAL  clock profiling: 10 ms, 1 ms, 100 ms, none, or\n"
		"                   INTERVAL like 2.5ms, 500us, 0.1s (a bare number is ms)\n"
		"  -h NAME[,INTERVAL][,NAME2[,INTERVAL2]...]  counter-overflow profiling\n"
		"  -o NAME.er       the experiment's name (default: the first free test.N.er)\n"
		"  -d DIR           put the experiment in DIR\n"
		"  -P PID           attach to process PID (and what it creates) until it exits\n"
		"  -t DUR           with -P or -a: stop after DUR (like INTERVAL; bare = s)\n"
		"  -a               the whole machine (needs CAP_PERFMON or CAP_SYS_ADMIN)\n"
		"  -K               kernel call stacks too, and where off-CPU time began\n"
		"      --kernel-only  kernel stacks and microstates without user stacks\n"
		"                   (the user pc only): cheap enough to leave on (implies -K)\n"
		"      --idle on|off  each CPU's idle time as <IDLE> (default on with -a)\n"
		"      --irq on|off   hard and soft interrupt time apart, with the\n"
		"                   interrupt's kernel stack (default on with -a -K)\n"
		"  -S, --stack-bytes N  user stack copied per sample (default %u, max %u)\n"
		"      --depth N    frame-pointer frames per stack (default %u, max %u)\n"
		"      --stack-delta on|off  send each stack copy as the blocks that\n"
		"                   changed since the thread's last one (default on)\n"
		"  -m PAGES         ring data pages per CPU, a power of two (default %u,\n"
		"                   or the most the module lets this user lock)\n"
		"  -s on|off|all|N  sync wait tracing: waits over a calibrated threshold,\n"
		"                   none, all, or over N microseconds\n"
		"  -H on|off        heap tracing (allocations, frees, leaks)\n"
		"  -i on|off        I/O tracing (reads, writes, other file calls)\n"
		"                   (tracing preloads liblwprof_trace.so into CMD and its\n"
		"                   descendants; it needs no module: use -p off alone)\n"
		"      --backend module|perf|auto  record with lwprof.ko, or with\n"
		"                   perf_event_open (no module needed; some microstates\n"
		"                   approximate or absent: docs/perf-backend.md);\n"
		"                   auto (default): the module when /dev/lwprof answers,\n"
		"                   else perf\n"
		"clock-profiling interval: %.3f ms to %.3f ms, resolution %.6f ms\n",
		COLLECT_STACK_DEFAULT, LWPROF_STACK_MAX, LWPROF_DEPTH_DEFAULT,
		LWPROF_DEPTH_MAX, COLLECT_RING_PAGES,
		LWPROF_CLOCK_MIN_NS / 1e6, LWPROF_CLOCK_MAX_NS / 1e6,
		(res.tv_sec * 1e9 + res.tv_nsec) / 1e6);
}

static const struct {
	const char *name;
	__u64 ns;
} units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "u", 1000 }, { "ms", 1000000 },
	{ "s", 1000000000 },
};

int collect_parse_time(const char *s, const char *bare_unit, __u64 *ns)
{
	__u64 whole = 0, frac = 0, scale = 1, unit = 0;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > UINT64_MAX / 100)
			return -ERANGE;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale < 1000000000000ULL) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
	if (!*p)
		p = bare_unit;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].name))
			unit = units[i].ns;
	if (!unit)
		return -EINVAL;
	if (whole > UINT64_MAX / unit)
		return -ERANGE;
	*ns = whole * unit + (frac * unit + scale / 2) / scale;
	return 0;
}

static int parse_clock(const char *s, __u64 *ns)
{
	int err;

	if (!strcmp(s, "on"))
		*ns = COLLECT_CLOCK_ON_NS;
	else if (!strcmp(s, "hi"))
		*ns = COLLECT_CLOCK_HI_NS;
	else if (!strcmp(s, "lo"))
		*ns = COLLECT_CLOCK_LO_NS;
	else if (!strcmp(s, "off"))
		*ns = 0;
	else {
		err = collect_parse_time(s, "ms", ns);
		if (err)
			return err;
		if (*ns < LWPROF_CLOCK_MIN_NS || *ns > LWPROF_CLOCK_MAX_NS)
			return -ERANGE;
	}
	return 0;
}

/* A size in bytes: N, Nk or NK (KiB). */
static int parse_size(const char *s, unsigned long long max, __u32 *v)
{
	unsigned long long n;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (!strcmp(end, "k") || !strcmp(end, "K") || !strcmp(end, "KiB")) {
		if (n > max / 1024)
			return -ERANGE;
		n *= 1024;
	} else if (*end) {
		return -EINVAL;
	}
	if (errno || n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, COLLECT ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* -s on|off|all|N (microseconds) */
static int parse_sync(const char *arg, struct collect_opts *o)
{
	char *end;
	unsigned long long us;

	if (!strcmp(arg, "on")) {
		o->sync = SYNC_CALIBRATE;
	} else if (!strcmp(arg, "off")) {
		o->sync = SYNC_OFF;
	} else if (!strcmp(arg, "all")) {
		o->sync = SYNC_THRESHOLD;
		o->sync_ns = 0;
	} else {
		errno = 0;
		us = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' ||
		    us > 60000000ULL)
			return bad("-s: '%s' is not on, off, all or a threshold in microseconds (0 to 60000000)",
				   arg);
		o->sync = SYNC_THRESHOLD;
		o->sync_ns = us * 1000;
	}
	return 0;
}

static int check_modes(struct collect_opts *o, int machine, int has_cmd)
{
	if (o->pid && machine)
		return bad("-P and -a do not go together");
	if (o->pid && has_cmd)
		return bad("give either -P PID or a command, not both");
	if (o->duration_ns && has_cmd)
		return bad("-t goes with -P or -a, not with a command");
	if (!o->pid && !machine && !has_cmd)
		return bad("no command given; see lwprof collect");
	if (!o->clock_ns && !o->nr_counters && !collect_tracing(o))
		return bad("-p off and no -h, -s, -H or -i: nothing to record");
	if (collect_tracing(o) && !has_cmd)
		return bad("-s, -H and -i trace a command (they preload a library into it): give one");
	o->mode = o->pid ? MODE_ATTACH : machine ? MODE_MACHINE : MODE_COMMAND;
	return 0;
}

/*
 * The whole-machine kernel profiling options (docs/kernel-profiling.md):
 * --kernel-only is -K without user stack copies; --idle needs -a and the
 * clock, --irq -K and the clock; by default both are on where they can be.
 */
static int check_kernel(struct collect_opts *o)
{
	if (o->konly) {
		if (o->stack_set && o->stack_bytes)
			return bad("--kernel-only copies no user stack: leave out -S");
		o->kstack = true;
		o->stack_bytes = 0;
		o->no_sdelta = true;
	}
	if (o->idle_set && o->idle && o->mode != MODE_MACHINE)
		return bad("--idle on goes with -a: idle time is the machine's");
	if (o->idle_set && o->idle && !o->clock_ns)
		return bad("--idle on needs the clock (-p)");
	if (o->irq_set && o->irq && (!o->kstack || !o->clock_ns))
		return bad("--irq on needs -K (or --kernel-only) and the clock (-p)");
	if (!o->idle_set)
		o->idle = o->mode == MODE_MACHINE && o->clock_ns;
	if (!o->irq_set)
		o->irq = o->mode == MODE_MACHINE && o->kstack && o->clock_ns;
	return 0;
}

/* "on" or "off" into *v (and *set); else a usage error. */
static int on_off(const char *opt, const char *arg, bool *v, bool *set)
{
	if (strcmp(arg, "on") && strcmp(arg, "off"))
		return bad("%s: '%s' is not on or off", opt, arg);
	*v = !strcmp(arg, "on");
	*set = true;
	return 0;
}

int collect_parse(int argc, char **argv, struct collect_opts *o)
{
	static const struct option longopts[] = {
		{ "stack-bytes", required_argument, NULL, 'S' },
		{ "depth", required_argument, NULL, 'D' },
		{ "stack-delta", required_argument, NULL, 'E' },
		{ "kernel-only", no_argument, NULL, 'k' },
		{ "idle", required_argument, NULL, 'I' },
		{ "irq", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 0x100 },
		{ "backend", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	char msg[512];
	int c, machine = 0, err;
	bool delta_set = false, set_dummy;
	__u32 v;

	memset(o, 0, sizeof(*o));
	o->clock_ns = COLLECT_CLOCK_ON_NS;
	o->stack_bytes = COLLECT_STACK_DEFAULT;
	o->depth = LWPROF_DEPTH_DEFAULT;
	o->ring_pages = COLLECT_RING_PAGES;
	if (argc < 2) {
		collect_usage(stdout);
		return -1;
	}
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		counters_list(stdout);
		return -1;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:h:o:d:P:t:KS:m:as:H:i:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			o->clock_set = true;
			err = parse_clock(optarg, &o->clock_ns);
			if (err == -ERANGE)
				return bad("-p: '%s' is out of range: 0.010 ms to 1000 ms (10us to 1s)",
					   optarg);
			if (err)
				return bad("-p: '%s' is not on, hi, lo, off or an interval like 10ms, 2.5ms, 500us",
					   optarg);
			break;
		case 'h':
			err = counters_parse(optarg, o, msg, sizeof(msg));
			if (err)
				return bad("%s", msg);
			break;
		case 'o':
			if (strlen(optarg) < 4 || strcmp(optarg + strlen(optarg) - 3, ".er"))
				return bad("-o: '%s' must end in .er", optarg);
			o->output = optarg;
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 'P':
			if (lwprof_parse_pid(optarg, &o->pid))
				return bad("-P: '%s' is not a process id", optarg);
			break;
		case 't':
			if (collect_parse_time(optarg, "s", &o->duration_ns) ||
			    !o->duration_ns)
				return bad("-t: '%s' is not a duration like 10, 2.5s, 500ms",
					   optarg);
			break;
		case 'K':
			o->kstack = true;
			break;
		case 'S':
			if (parse_size(optarg, LWPROF_STACK_MAX, &o->stack_bytes))
				return bad("-S: '%s' is not a size from 0 to 65536 bytes (like 8192 or 16k)",
					   optarg);
			o->stack_bytes = (o->stack_bytes + 63) & ~63U;
			o->stack_set = true;
			break;
		case 'D':
			if (parse_size(optarg, LWPROF_DEPTH_MAX, &v) || !v)
				return bad("--depth: '%s' is not a number from 1 to 1024",
					   optarg);
			o->depth = v;
			break;
		case 'E':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				return bad("--stack-delta: '%s' is not on or off",
					   optarg);
			o->no_sdelta = !strcmp(optarg, "off");
			delta_set = true;
			break;
		case 'k':
			o->konly = true;
			break;
		case 'I':
			err = on_off("--idle", optarg, &o->idle, &o->idle_set);
			if (err)
				return err;
			break;
		case 'Q':
			err = on_off("--irq", optarg, &o->irq, &o->irq_set);
			if (err)
				return err;
			break;
		case 'm':
			if (parse_size(optarg, 16384, &v) || !v || (v & (v - 1)))
				return bad("-m: '%s' is not a power of two from 1 to 16384",
					   optarg);
			o->ring_pages = v;
			o->ring_pages_set = true;
			break;
		case 'a':
			machine = 1;
			break;
		case 0x100:
			collect_usage(stdout);
			return -1;
		case 's':
			err = parse_sync(optarg, o);
			if (err)
				return err;
			break;
		case 'H':
			err = on_off("-H", optarg, &o->heap, &set_dummy);
			if (err)
				return err;
			break;
		case 'i':
			err = on_off("-i", optarg, &o->io, &set_dummy);
			if (err)
				return err;
			break;
		case 'B': {
			enum lwprof_backend b;

			if (lwprof_backend_parse(optarg, &b))
				return bad("--backend: '%s' is not module, perf or auto",
					   optarg);
			o->backend = b;
			break;
		}
		case ':':
			if (optopt == 'h') {
				/* -h at the end: the lists. */
				counters_list(stdout);
				return -1;
			}
			fprintf(stderr, COLLECT ": option -%c needs a value\n",
				optopt);
			return 2;
		default:
			if (optopt)
				fprintf(stderr, COLLECT ": unknown option -%c; valid: -p -h -o -d -P -t -a -K -S -m -s -H -i --depth --stack-bytes --stack-delta --kernel-only --idle --irq --backend\n",
					optopt);
			else
				fprintf(stderr, COLLECT ": unknown option %s; valid: -p -h -o -d -P -t -a -K -S -m -s -H -i --depth --stack-bytes --stack-delta --kernel-only --idle --irq --backend\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->konly && delta_set && !o->no_sdelta)
		return bad("--kernel-only copies no user stack: leave out --stack-delta on");
	err = check_modes(o, machine, optind < argc);
	return err ? err : check_kernel(o);
}
