// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof collect's command line.  collect_parse() returns 0 to run, -1 when
 * it already did what was asked (usage, the counter lists: exit 0), or the
 * exit status of a usage error (2) after a one-line message.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "libexp/nearest.h"
#include "userspace/collect/collect.h"

void collect_usage(FILE *f)
{
	struct timespec res = { 0, 1 };

	clock_getres(CLOCK_MONOTONIC, &res);
	fprintf(f,
		"usage: lwprof collect [options] CMD [ARGS...]   record CMD and its descendants\n"
		"       lwprof collect [options] -P PID [-t END]  record a running process\n"
		"       lwprof collect [options] -a [-t END | CMD [ARGS...]]  the whole machine\n"
		"       lwprof collect -h                         list the counters of this machine\n"
		"options:\n"
		"  -p on|hi|lo|off|INTERVAL  clock profiling: 10 ms, 1 ms, 100 ms, none, or\n"
		"                   INTERVAL like 2.5ms, 500us, 0.1s (a bare number is ms)\n"
		"  -h NAME[,INTERVAL][,NAME2[,INTERVAL2]...]  counter-overflow profiling\n"
		"  -o NAME.er       the experiment's name (default: the first free test.N.er)\n"
		"  -d DIR           put the experiment in DIR\n"
		"  -P PID           attach to process PID (and what it creates) until it exits\n"
		"  -t [START-]END   record from START (paused before) to END: seconds\n"
		"                   from the start, like 2.5, 500ms; with -P or -a END\n"
		"                   ends the run\n"
		"  -S on|off|SECS   a global sample packet every SECS (on: 1 s, default)\n"
		"  -l SIGNAL        a sample packet when SIGNAL reaches the target or collect\n"
		"  -y SIGNAL[,r]    SIGNAL pauses and resumes recording; paused at the\n"
		"                   start unless ,r (recording) is given\n"
		"  -L MB|unlimited  stop recording when the experiment reaches MB megabytes\n"
		"      --flight SIZE|SECS  flight recorder: keep the last SIZE (like 64M)\n"
		"                   or SECS (like 30s) of records in memory; write an\n"
		"                   experiment on --flight-signal and at the end\n"
		"      --flight-signal SIGNAL  the snapshot signal (default USR2)\n"
		"  -a               the whole machine (needs CAP_PERFMON or CAP_SYS_ADMIN)\n"
		"  -K               kernel call stacks too, and where off-CPU time began\n"
		"      --kernel-only  kernel stacks and microstates without user stacks\n"
		"                   (the user pc only): cheap enough to leave on (implies -K)\n"
		"      --idle on|off  each CPU's idle time as <IDLE> (default on with -a)\n"
		"      --irq on|off   hard and soft interrupt time apart, with the\n"
		"                   interrupt's kernel stack (default on with -a -K)\n"
		"      --stack-bytes N  user stack copied per sample (default %u, max %u)\n"
		"      --depth N    frame-pointer frames per stack (default %u, max %u)\n"
		"      --stack-delta on|off  send each stack copy as the blocks that\n"
		"                   changed since the thread's last one (default on)\n"
		"  -m PAGES         ring data pages per CPU, a power of two (default %u,\n"
		"                   or the most the module lets this user lock)\n"
		"  -s on|off|all|N  sync wait tracing: waits over a calibrated threshold,\n"
		"                   none, all, or over N microseconds\n"
		"  -H on|off        heap tracing (allocations, frees, leaks)\n"
		"  -i on|off        I/O tracing (reads, writes, other file calls)\n"
		"  -M OPENMPI|MPICH|on|off  MPI tracing; with a launcher (LAUNCHER ARGS --\n"
		"                   PROG ARGS) one experiment with one per rank, M_rN.er;\n"
		"                   on: the implementation PROG links\n"
		"                   (tracing preloads liblwprof_trace.so into CMD and its\n"
		"                   descendants; it needs no module: use -p off alone)\n"
		"  -j on|off        Java: the JVMTI agent records methods and Java stacks\n"
		"                   (default on when CMD is java)\n"
		"      --backend module|perf|auto  record with lwprof.ko, or with\n"
		"                   perf_event_open (no module needed; some microstates\n"
		"                   approximate or absent: docs/design/perf-backend.md);\n"
		"                   auto (default): the module when /dev/lwprof answers,\n"
		"                   else perf\n"
		"      --omp on|off|auto  OpenMP: the OMPT tool (work, wait, <OMP-*>,\n"
		"                   user view mode); auto (default): when CMD links an\n"
		"                   OpenMP runtime\n"
		"      --omp-runtime llvm  run a gcc-built CMD on LLVM's libomp (its\n"
		"                   GOMP_* entry points), which has OMPT\n"
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

/* A signal: its name with or without SIG, or its number; 0 if none. */
static int parse_signal(const char *s)
{
	char *end;
	long n;
	int i;

	if (*s >= '0' && *s <= '9') {
		n = strtol(s, &end, 10);
		return *end || n <= 0 || n >= NSIG ? 0 : (int)n;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (i = 1; i < NSIG; i++)
		if (sigabbrev_np(i) && !strcasecmp(s, sigabbrev_np(i)))
			return i;
	return 0;
}

/* A signal collect may take for itself: not one it or the run needs. */
static bool signal_free(int sig)
{
	return sig && sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD &&
	       sig != SIGINT && sig != SIGTERM && sig != SIGHUP &&
	       sig != SIGSEGV && sig != SIGBUS && sig != SIGPIPE;
}

/* -S on|off|SECONDS */
static int parse_sample(const char *s, __u64 *ns)
{
	if (!strcmp(s, "on"))
		*ns = COLLECT_SAMPLE_NS;
	else if (!strcmp(s, "off"))
		*ns = 0;
	else if (collect_parse_time(s, "s", ns) || *ns < 10000000ULL)
		return -EINVAL;
	return 0;
}

/* -L MB|unlimited|none */
static int parse_limit(const char *s, __u64 *bytes)
{
	char *end;
	unsigned long long mb;

	if (!strcmp(s, "unlimited") || !strcmp(s, "none")) {
		*bytes = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	mb = strtoull(s, &end, 10);
	if (errno || *end || !mb || mb > (1ULL << 40))
		return -EINVAL;
	*bytes = mb << 20;
	return 0;
}

/* -t [START-]END, seconds by default */
static int parse_window(const char *s, __u64 *start, __u64 *end)
{
	const char *dash = strchr(s, '-');
	char first[64];

	*start = 0;
	if (dash) {
		if ((size_t)(dash - s) >= sizeof(first))
			return -EINVAL;
		memcpy(first, s, dash - s);
		first[dash - s] = 0;
		if (collect_parse_time(first, "s", start))
			return -EINVAL;
		s = dash + 1;
	}
	if (collect_parse_time(s, "s", end) || !*end || *end <= *start)
		return -EINVAL;
	return 0;
}

/* --flight 64M | 30s */
static int parse_flight(const char *s, struct rec_opts *o)
{
	char *end;
	unsigned long long n;
	size_t l = strlen(s);

	if (l > 1 && s[l - 1] == 's' && s[l - 2] >= '0' && s[l - 2] <= '9')
		return collect_parse_time(s, "s", &o->flight_ns) ||
		       o->flight_ns < 1000000000ULL ? -EINVAL : 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	n = strtoull(s, &end, 10);
	if (!strcmp(end, "M") || !strcmp(end, "MB") || !strcmp(end, "m"))
		n <<= 20;
	else if (!strcmp(end, "G") || !strcmp(end, "GB") || !strcmp(end, "g"))
		n <<= 30;
	else
		return -EINVAL;
	if (n < (1ULL << 20) || n > (64ULL << 30))
		return -EINVAL;
	o->flight_bytes = n;
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
static int parse_sync(const char *arg, struct rec_opts *o)
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

static int check_modes(struct rec_opts *o, int machine, int has_cmd)
{
	if (o->pid && machine)
		return bad("-P and -a do not go together");
	if (o->pid && has_cmd)
		return bad("give either -P PID or a command, not both");
	if (!o->pid && !machine && !has_cmd)
		return bad("no command given; see lwprof collect");
	if (!o->clock_ns && !o->nr_counters && !rec_tracing(o))
		return bad("-p off and no -h, -s, -H or -i: nothing to record");
	if (rec_tracing(o) && !has_cmd)
		return bad("-s, -H, -i and -M trace a command (they preload a library into it): give one");
	o->mode = o->pid ? MODE_ATTACH : machine ? MODE_MACHINE : MODE_COMMAND;
	return 0;
}

/* -l, -y and --flight-signal: three different signals. */
static int check_signals(struct rec_opts *o, bool flight_sig_set)
{
	if (o->sig_sample && o->sig_sample == o->sig_pause)
		return bad("-l and -y need different signals");
	if (flight_sig_set && !(o->flight_bytes || o->flight_ns))
		return bad("--flight-signal goes with --flight");
	if ((o->flight_bytes || o->flight_ns) &&
	    (o->sig_flight == o->sig_sample || o->sig_flight == o->sig_pause))
		return bad("--flight's snapshot signal (SIG%s) is -l's or -y's too; choose another with --flight-signal",
			   sigabbrev_np(o->sig_flight));
	if ((o->flight_bytes || o->flight_ns) && o->limit_bytes)
		return bad("--flight keeps the last records in memory; -L limits an experiment on disk: choose one");
	return 0;
}

/*
 * The whole-machine kernel profiling options (docs/design/kernel-profiling.md):
 * --kernel-only is -K without user stack copies; --idle needs -a and the
 * clock, --irq -K and the clock; by default both are on where they can be.
 */
static int check_kernel(struct rec_opts *o)
{
	if (o->konly) {
		if (o->stack_set && o->stack_bytes)
			return bad("--kernel-only copies no user stack: leave out --stack-bytes");
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

int collect_parse(int argc, char **argv, struct rec_opts *o)
{
	static const char shortopts[] = "+:p:h:o:d:P:t:KS:m:al:y:L:s:H:i:j:M:";
	static const struct option longopts[] = {
		{ "stack-bytes", required_argument, NULL, 'B' },
		{ "depth", required_argument, NULL, 'D' },
		{ "stack-delta", required_argument, NULL, 'E' },
		{ "kernel-only", no_argument, NULL, 'k' },
		{ "idle", required_argument, NULL, 'I' },
		{ "irq", required_argument, NULL, 'Q' },
		{ "flight", required_argument, NULL, 'F' },
		{ "flight-signal", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 0x100 },
		{ "backend", required_argument, NULL, 0x101 },
		{ "omp", required_argument, NULL, 0x102 },
		{ "omp-runtime", required_argument, NULL, 0x103 },
		{ NULL, 0, NULL, 0 },
	};
	char msg[512];
	int c, machine = 0, err;
	bool delta_set = false, flight_sig_set = false, set_dummy;
	const char *comma;
	__u32 v;

	memset(o, 0, sizeof(*o));
	o->clock_ns = COLLECT_CLOCK_ON_NS;
	o->stack_bytes = COLLECT_STACK_DEFAULT;
	o->depth = LWPROF_DEPTH_DEFAULT;
	o->ring_pages = COLLECT_RING_PAGES;
	o->sample_ns = COLLECT_SAMPLE_NS;
	o->sig_flight = SIGUSR2;
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
	while ((c = getopt_long(argc, argv, shortopts, longopts,
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
			if (parse_window(optarg, &o->start_ns, &o->duration_ns))
				return bad("-t: '%s' is not [START-]END like 10, 2.5s, 500ms or 1-3 (START before END)",
					   optarg);
			break;
		case 'l':
			o->sig_sample = parse_signal(optarg);
			if (!signal_free(o->sig_sample))
				return bad("-l: '%s' is not a signal collect may use (like PROF, USR1, USR2)",
					   optarg);
			break;
		case 'y':
			comma = strchr(optarg, ',');
			if (comma && strcmp(comma, ",r"))
				return bad("-y: '%s': after the signal only ,r may follow",
					   optarg);
			snprintf(msg, sizeof(msg), "%.*s",
				 comma ? (int)(comma - optarg) : (int)strlen(optarg),
				 optarg);
			o->sig_pause = parse_signal(msg);
			if (!signal_free(o->sig_pause))
				return bad("-y: '%s' is not a signal collect may use (like USR1, USR2)",
					   msg);
			o->start_paused = !comma;
			break;
		case 'L':
			if (parse_limit(optarg, &o->limit_bytes))
				return bad("-L: '%s' is not a size in megabytes or unlimited",
					   optarg);
			break;
		case 'F':
			if (parse_flight(optarg, o))
				return bad("--flight: '%s' is not a size like 64M, 1G (at least 1M) or seconds like 30s (at least 1s)",
					   optarg);
			break;
		case 'G':
			o->sig_flight = parse_signal(optarg);
			if (!signal_free(o->sig_flight))
				return bad("--flight-signal: '%s' is not a signal collect may use (like USR2)",
					   optarg);
			flight_sig_set = true;
			break;
		case 'K':
			o->kstack = true;
			break;
		case 'S':
			if (parse_sample(optarg, &o->sample_ns))
				return bad("-S: '%s' is not on, off or seconds (at least 0.01) between sample packets; the stack copy's size is --stack-bytes",
					   optarg);
			break;
		case 'B':
			if (parse_size(optarg, LWPROF_STACK_MAX, &o->stack_bytes))
				return bad("--stack-bytes: '%s' is not a size from 0 to 65536 bytes (like 8192 or 16k)",
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
		case 'j': {
			bool on = false;

			err = on_off("-j", optarg, &on, &set_dummy);
			if (err)
				return err;
			o->java = on ? 1 : -1;
			break;
		}
		case 'M':
			if (collect_mpi_parse(optarg, o))
				return bad("-M: '%s' is not OPENMPI, MPICH, on or off",
					   optarg);
			break;
		case 0x101:
			if (backend_parse(optarg, &o->backend))
				return bad("--backend: '%s' is not module, perf or auto",
					   optarg);
			break;
		case 0x102:
			if (!strcmp(optarg, "on"))
				o->omp = OMP_ON;
			else if (!strcmp(optarg, "off"))
				o->omp = OMP_OFF;
			else if (!strcmp(optarg, "auto"))
				o->omp = OMP_AUTO;
			else
				return bad("--omp: '%s' is not on, off or auto", optarg);
			break;
		case 0x103:
			if (strcmp(optarg, "llvm") && strcmp(optarg, "native"))
				return bad("--omp-runtime: '%s' is not llvm or native", optarg);
			o->omp_llvm = !strcmp(optarg, "llvm");
			break;
		case ':':
			if (optopt == 'h') {
				/* -h at the end: the lists. */
				counters_list(stdout);
				return -1;
			}
			/* fall through */
		default:
			return exp_option_error(COLLECT, argv, c, shortopts,
						longopts);
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->konly && delta_set && !o->no_sdelta)
		return bad("--kernel-only copies no user stack: leave out --stack-delta on");
	/*
	 * A delta copy needs the thread's copy before it: the flight recorder
	 * lets old records go, so by default its copies are whole.
	 */
	if ((o->flight_bytes || o->flight_ns) && !delta_set)
		o->no_sdelta = true;
	if (o->omp_llvm && o->omp == OMP_OFF)
		return bad("--omp-runtime llvm runs the command on libomp for its OpenMP metrics: not with --omp off");
	if (o->omp_llvm)
		o->omp = OMP_ON;
	collect_omp_resolve(o);
	err = check_modes(o, machine, optind < argc);
	if (!err)
		err = check_signals(o, flight_sig_set);
	return err ? err : check_kernel(o);
}
