// SPDX-License-Identifier: GPL-2.0
/*
 * log.txt (exp.h): the key table both directions use, the writer's line
 * (exp_log_put(), writer.c) and the reader.  A line that does not parse
 * is an error naming the file, line and byte offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/format.h"
#include "libexp/internal.h"
#include "libexp/mstate_names.h"

#define KEY(k, n, t, f) \
	[EXP_K_##k] = { n, EXP_KT_##t, offsetof(struct exp_info, f) }
#define NOTE(k, n)	[EXP_K_##k] = { n, EXP_KT_NOTE, 0 }

const struct exp_key_def exp_keys[EXP_K_COUNT] = {
	KEY(COMMAND, "command", STR, command),
	KEY(MODE, "mode", STR, mode),
	KEY(TARGET, "target", U32, target),
	KEY(HOST, "host", STR, host),
	KEY(KERNEL, "kernel", STR, kernel),
	KEY(ARCH, "arch", STR, arch),
	KEY(CPUS, "cpus", U32, cpus),
	KEY(CPUS_POSSIBLE, "cpus_possible", U32, cpus_possible),
	KEY(CPU_MHZ, "cpu_mhz", DOUBLE, cpu_mhz),
	NOTE(CLOCK, "clock"),
	KEY(START_NS, "start_ns", U64, start_ns),
	KEY(START_TIME, "start_time", STR, start_time),
	KEY(END_NS, "end_ns", U64, end_ns),
	KEY(END_TIME, "end_time", STR, end_time),
	KEY(CLOCK_INTERVAL_NS, "clock_interval_ns", U64, clock_interval_ns),
	KEY(COUNTER, "counter", COUNTER, counters),
	KEY(MAX_DEPTH, "max_depth", U32, max_depth),
	KEY(STACK_BYTES, "stack_bytes", U32, stack_bytes),
	KEY(KERNEL_STACKS, "kernel_stacks", U32, kernel_stacks),
	KEY(RECORDS, "records", U64, records),
	KEY(LOST, "lost", U64, lost),
	NOTE(LOST_CPU, "lost.cpu"),	/* lost.cpuN */
	KEY(EXIT, "exit", STR, exit),
	KEY(WARNING, "warning", WARNING, warnings),
	KEY(BACKEND, "backend", STR, backend),
	KEY(ABI, "abi", STR, abi),
	KEY(MODULE_VERSION, "module_version", STR, module_version),
	NOTE(STACK_DELTA, "stack_delta"),
	NOTE(RING_PAGES, "ring_pages"),
	NOTE(OFFCPU, "offcpu"),
	NOTE(IDLE, "idle"),
	NOTE(IRQ, "irq"),
	NOTE(KERNEL_ONLY, "kernel_only"),
	KEY(METRIC, "metric", METRIC, metrics),
	NOTE(PERF_EVENT_PARANOID, "perf_event_paranoid"),
	NOTE(OFFCPU_STACKS, "offcpu_stacks"),
	NOTE(OFFCPU_WAKEUPS, "offcpu_wakeups"),
	KEY(PERF_MAX_STACK, "perf_max_stack", U32, perf_max_stack),
	NOTE(PERF_SAMPLES, "perf_samples"),
	NOTE(PERF_SWITCHES, "perf_switches"),
	NOTE(PERF_WAKEUPS, "perf_wakeups"),
	NOTE(PERF_PROC_SCAN, "perf_proc_scan"),
	KEY(KALLSYMS_HIDDEN, "kallsyms_hidden", U32, kallsyms_hidden),
	NOTE(SOURCE, "source"),
	KEY(TRACE, "trace", STR, trace),
	KEY(SYNC_CALIBRATION, "sync_calibration", STR, sync_calibration),
	KEY(SYNC_THRESHOLD_NS, "sync_threshold_ns", U64, sync_ns),
	KEY(TRACE_STACK_BYTES, "trace_stack_bytes", U32, trace_stack_bytes),
	NOTE(TRACE_LIBRARY, "trace_library"),
	KEY(TRACE_FILES, "trace_files", U64, trace_files),
	KEY(TRACE_CALLS, "trace_calls", U64, trace_calls),
	KEY(STOPPED, "stopped", STR, stopped),
	KEY(SAMPLE_PACKETS, "sample_packets", U64, sample_packets),
	KEY(PAUSED_NS, "paused_ns", U64, paused_ns),
	KEY(FLIGHT, "flight", STR, flight),
	NOTE(FLIGHT_PAUSED_OUT, "flight_paused_out"),
	KEY(JAVA, "java", STR, java),
	NOTE(JAVA_AGENT, "java_agent"),
	NOTE(JAVA_FILES, "java_files"),
	NOTE(JAVA_RECORDS, "java_records"),
	NOTE(OPENMP, "openmp"),
	NOTE(OPENMP_RUNTIME, "openmp_runtime"),
	KEY(MPI, "mpi", STR, mpi),
	KEY(MPI_RANK, "mpi_rank", STR, mpi_rank),
	NOTE(MPI_LIBRARY, "mpi_library"),
};

void exp_log_put(FILE *f, enum exp_key k, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s = ", exp_keys[k].name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* Append s (copied) to the list *v of *n: 0 or -ENOMEM. */
static int push_str(char ***v, size_t *n, const char *s)
{
	char **w = realloc(*v, (*n + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	*v = w;
	w[*n] = strdup(s);
	if (!w[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int log_counter(struct exp_info *in, char *v)
{
	struct exp_counter c = { .name = "" }, *nc;
	char *f[4], *save = NULL;
	int i;

	for (i = 0; i < 4; i++) {
		f[i] = strtok_r(i ? NULL : v, ",", &save);
		if (!f[i])
			return -EINVAL;
	}
	if (strlen(f[0]) >= sizeof(c.name) || !f[0][0] ||
	    exp_parse_u64(f[1], &c.period) || exp_parse_u32(f[2], &c.type) ||
	    exp_parse_u64(f[3], &c.config))
		return -EINVAL;
	strcpy(c.name, f[0]);
	nc = realloc(in->counters, (in->nr_counters + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	in->counters = nc;
	nc[in->nr_counters++] = c;
	return 0;
}

/*
 * "metric = NAME STATUS: why" (the perf backend's, format 1.3): NAME a
 * microstate's name, STATUS exact, approximate or absent.  Kept for
 * print -header; an absent microstate is shown as absent, never as 0.
 */
static int log_metric(struct exp_info *in, const char *v)
{
	size_t n = strcspn(v, " ");
	int i;

	if (!v[n])
		return -EINVAL;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (strlen(exp_mstate_names[i].name) == n &&
		    !strncmp(v, exp_mstate_names[i].name, n) &&
		    !strncmp(v + n + 1, "absent", 6))
			in->ms_absent |= 1u << i;
	return push_str(&in->metrics, &in->nr_metrics, v);
}

/* Key k's value v into in: 0, -EINVAL (a bad value) or -ENOMEM. */
static int log_key(struct exp_info *in, const char *k, char *v)
{
	const struct exp_key_def *d = NULL;
	void *field;
	char *end;
	size_t i;

	for (i = 0; i < EXP_K_COUNT && !d; i++)
		if (!strcmp(k, exp_keys[i].name))
			d = &exp_keys[i];
	if (!d)
		return 0;	/* lost.cpuN, and keys of later minors */
	field = (char *)in + d->off;
	switch (d->type) {
	case EXP_KT_NOTE:
		return 0;
	case EXP_KT_STR:
		free(*(char **)field);
		*(char **)field = strdup(v);
		return *(char **)field ? 0 : -ENOMEM;
	case EXP_KT_U32:
		return exp_parse_u32(v, field);
	case EXP_KT_U64:
		return exp_parse_u64(v, field);
	case EXP_KT_DOUBLE:
		errno = 0;
		*(double *)field = strtod(v, &end);
		return errno || *end || !(*(double *)field >= 0) ? -EINVAL : 0;
	case EXP_KT_COUNTER:
		return log_counter(in, v);
	case EXP_KT_METRIC:
		return log_metric(in, v);
	case EXP_KT_WARNING:
		return push_str(&in->warnings, &in->nr_warnings, v);
	}
	return 0;
}

void exp_info_free(struct exp_info *in)
{
	size_t i;

	for (i = 0; i < EXP_K_COUNT; i++)
		if (exp_keys[i].type == EXP_KT_STR)
			free(*(char **)((char *)in + exp_keys[i].off));
	for (i = 0; i < in->nr_warnings; i++)
		free(in->warnings[i]);
	for (i = 0; i < in->nr_metrics; i++)
		free(in->metrics[i]);
	free(in->warnings);
	free(in->metrics);
	free(in->counters);
	memset(in, 0, sizeof(*in));
}

int exp_log_read(struct exp *x)
{
	struct exp_info *in = &x->info;
	char path[4096], *buf, *s, *eq, *k, *v, *p;
	struct exp_lines l;
	size_t len;
	int err, maj, min, n;

	snprintf(path, sizeof(path), "%s/%s", x->dir, EXP_LOG);
	err = exp_slurp(x, path, &buf, &len, true);
	if (!buf)
		return err;
	exp_lines_init(&l, buf, len);
	s = exp_next_line(&l);
	if (!s || sscanf(s, "lwprof experiment %d.%d%n", &maj, &min, &n) != 2 ||
	    s[n]) {
		err = exp_complain(x, -EINVAL,
				   "%s: byte 0: not an lwprof experiment log (first line '%.40s')",
				   path, s ? s : "");
	} else if (maj != EXP_FILE_MAJOR) {
		err = exp_complain(x, -EPROTO,
				   "%s: byte 18: experiment format %d.%d; this lwprof reads %d.x",
				   path, maj, min, EXP_FILE_MAJOR);
	} else {
		in->fmt_major = maj;
		in->fmt_minor = min;
	}
	while (!err && (s = exp_next_line(&l))) {
		if (!*s || *s == '#')
			continue;
		eq = strstr(s, " = ");
		k = s;
		if (eq) {
			*eq = 0;
			v = eq + 3;
			for (p = k; *p && *p != ' ' && *p != '\t'; p++)
				;
			err = !*k || *p ? -EINVAL : log_key(in, k, v);
		} else {
			err = -EINVAL;
		}
		if (err == -ENOMEM)
			err = exp_complain(x, err, "out of memory");
		else if (err)
			err = exp_complain(x, err, "%s: line %lu (byte %zu): bad %s line",
					   path, l.no, l.off, eq ? k : "key = value");
	}
	free(buf);
	if (!err && in->end_ns && in->end_ns < in->start_ns)
		err = exp_complain(x, -EINVAL,
				   "%s: end_ns %" PRIu64 " before start_ns %" PRIu64,
				   path, in->end_ns, in->start_ns);
	return err;
}
