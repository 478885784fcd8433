// SPDX-License-Identifier: GPL-2.0
/*
 * Counters for overflow profiling (-h): the names lwprof knows, what this
 * machine supports (probed with perf_event_open), the lists of
 * `lwprof collect -h` in the format of Oracle's collect, and the
 * parsing of -h name[,interval][,name2[,interval2]...].
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/collect/collect.h"

#define RAW_DEFAULT	1000003ULL	/* Oracle's default for raw counters */

struct cdesc {
	const char *name;	/* what -h takes */
	const char *raw;	/* the perf name it stands for (aliases) */
	__u32 type;
	__u64 config;
	__u64 period;		/* default interval */
	const char *desc;
	const char *unit;
};

/* Aliases of the generic hardware events (Oracle's short names). */
static const struct cdesc hw_alias[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  9999991, "CPU Cycles", "CPU-cycles" },
	{ "insts", "instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS, 9999991, "Instructions Executed",
	  "events" },
	{ "cacherefs", "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES, 1000003, "Cache References",
	  "load-store events" },
	{ "cachem", "cache-misses", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES, 100003, "Cache Misses",
	  "load-store events" },
	{ "branches", "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000003, "Branches", "events" },
	{ "branchm", "branch-misses", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES, 100003, "Branch Mispredictions",
	  "events" },
	{ "refcycles", "ref-cycles", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES, 9999991, "Reference Cycles",
	  "CPU-cycles" },
};

/* The generic hardware events under perf's names: the "raw" list. */
static const struct cdesc hw_raw[] = {
	{ "cpu-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  RAW_DEFAULT, NULL, "CPU-cycles" },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  RAW_DEFAULT, NULL, "events" },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES, RAW_DEFAULT, NULL, "load-store events" },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  RAW_DEFAULT, NULL, "load-store events" },
	{ "branch-instructions", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, RAW_DEFAULT, NULL, "events" },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES, RAW_DEFAULT, NULL, "events" },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES,
	  RAW_DEFAULT, NULL, "CPU-cycles" },
	{ "stalled-cycles-frontend", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, RAW_DEFAULT, NULL,
	  "CPU-cycles" },
	{ "stalled-cycles-backend", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, RAW_DEFAULT, NULL,
	  "CPU-cycles" },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
	  RAW_DEFAULT, NULL, "CPU-cycles" },
};

/* Software events: always there (the module counts them in the kernel). */
static const struct cdesc sw[] = {
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  10000000, "CPU Clock", "nanoseconds" },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  10000000, "Task Clock", "nanoseconds" },
	{ "page-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  1000, "Page Faults", "events" },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN, 1000, "Minor Page Faults", "events" },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ, 10, "Major Page Faults", "events" },
	{ "context-switches", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, 1000, "Context Switches", "events" },
	{ "cpu-migrations", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS, 100, "CPU Migrations", "events" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum { SUP_NO, SUP_YES, SUP_UNKNOWN };

/*
 * Can this machine count (type, config) for a thread of ours?  Unknown
 * when perf_event_paranoid forbids asking; then sysfs tells whether there
 * is a CPU PMU at all (the module's in-kernel counters ignore paranoia).
 */
static int probe(__u32 type, __u64 config, int *why)
{
	struct perf_event_attr a;
	int fd;

	pevent_attr(&a, type, config);
	a.disabled = 1;
	a.exclude_kernel = 1;
	fd = pevent_open(&a, 0, -1, -1);
	if (fd >= 0) {
		close(fd);
		return SUP_YES;
	}
	*why = -fd;
	if (fd == -EACCES || fd == -EPERM)
		return access("/sys/bus/event_source/devices/cpu", F_OK) ?
			SUP_NO : SUP_UNKNOWN;
	return SUP_NO;
}

/* Is there a hardware PMU?  Its reason in *why when there is none. */
static int have_pmu(int *why)
{
	return probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, why) !=
	       SUP_NO ||
	       probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, why) !=
	       SUP_NO;
}

void counters_list(FILE *f)
{
	int why = 0, pmu = have_pmu(&why);
	size_t i;

	if (pmu) {
		fprintf(f, "Aliased HW counters available for profiling:\n");
		for (i = 0; i < N(hw_alias); i++)
			if (probe(hw_alias[i].type, hw_alias[i].config, &why) !=
			    SUP_NO)
				fprintf(f, "%s,%llu ('%s', alias for %s; %s)\n",
					hw_alias[i].name,
					(unsigned long long)hw_alias[i].period,
					hw_alias[i].desc, hw_alias[i].raw,
					hw_alias[i].unit);
		fprintf(f, "Raw HW counters available for profiling:\n");
		for (i = 0; i < N(hw_raw); i++)
			if (probe(hw_raw[i].type, hw_raw[i].config, &why) !=
			    SUP_NO)
				fprintf(f, "%s,%llu (%s)\n", hw_raw[i].name,
					(unsigned long long)hw_raw[i].period,
					hw_raw[i].unit);
		fprintf(f, "r<hex>,%llu (events; a raw PMU event code, e.g. r00c0)\n",
			RAW_DEFAULT);
	} else {
		fprintf(f, "No HW counters available for profiling: this machine has no PMU (perf_event_open: %s).\n",
			strerror(why));
	}
	fprintf(f, "Software counters available for profiling:\n");
	for (i = 0; i < N(sw); i++)
		fprintf(f, "%s,%llu ('%s'; %s)\n", sw[i].name,
			(unsigned long long)sw[i].period, sw[i].desc,
			sw[i].unit);
}

void counters_names(FILE *f)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < N(sw); i++, sep = ", ")
		fprintf(f, "%s%s", sep, sw[i].name);
	for (i = 0; i < N(hw_alias); i++)
		fprintf(f, ", %s", hw_alias[i].name);
	for (i = 0; i < N(hw_raw); i++)
		fprintf(f, ", %s", hw_raw[i].name);
	fprintf(f, ", r<hex>");
}

static const struct cdesc *lookup(const char *name)
{
	size_t i;

	for (i = 0; i < N(sw); i++)
		if (!strcmp(name, sw[i].name))
			return &sw[i];
	for (i = 0; i < N(hw_alias); i++)
		if (!strcmp(name, hw_alias[i].name))
			return &hw_alias[i];
	for (i = 0; i < N(hw_raw); i++)
		if (!strcmp(name, hw_raw[i].name))
			return &hw_raw[i];
	return NULL;
}

/* r<hex>: a raw PMU event code. */
static int parse_raw(const char *name, struct exp_counter *c)
{
	char *end;

	if (name[0] != 'r' || !name[1])
		return -EINVAL;
	errno = 0;
	c->config = strtoull(name + 1, &end, 16);
	if (errno || *end)
		return -EINVAL;
	c->type = PERF_TYPE_RAW;
	c->period = RAW_DEFAULT;
	return 0;
}

/* An interval: a positive number, or on / hi / lo around the default. */
static int parse_interval(const char *s, uint64_t def, uint64_t *v)
{
	char *end;

	if (!strcmp(s, "on")) {
		*v = def;
	} else if (!strcmp(s, "hi")) {
		*v = def / 10 ? def / 10 : 1;
	} else if (!strcmp(s, "lo")) {
		*v = def * 10;
	} else {
		errno = 0;
		*v = strtoull(s, &end, 0);
		if (errno || *end || !*v || *v > INT64_MAX || s[0] == '-')
			return -EINVAL;
	}
	return 0;
}

static int is_interval(const char *s)
{
	return (s[0] >= '0' && s[0] <= '9') || !strcmp(s, "on") ||
	       !strcmp(s, "hi") || !strcmp(s, "lo");
}

static int add_one(const char *name, const char *ival, struct rec_opts *o,
		   char *msg, size_t len)
{
	struct exp_counter *c = &o->counters[o->nr_counters];
	const struct cdesc *d = lookup(name);
	unsigned int i;
	int why = 0;

	if (o->nr_counters >= LWPROF_MAX_COUNTERS) {
		snprintf(msg, len, "-h: at most %d counters", LWPROF_MAX_COUNTERS);
		return -E2BIG;
	}
	memset(c, 0, sizeof(*c));
	if (d) {
		c->type = d->type;
		c->config = d->config;
		c->period = d->period;
	} else if (parse_raw(name, c)) {
		FILE *m = fmemopen(msg, len, "w");

		if (m) {
			fprintf(m, "-h: unknown counter '%s'; valid: ", name);
			counters_names(m);
			fclose(m);
		}
		return -EINVAL;
	}
	if (c->type != PERF_TYPE_SOFTWARE &&
	    probe(c->type, c->config, &why) == SUP_NO) {
		snprintf(msg, len, "-h: counter '%s' is not available on this machine (%s); see lwprof collect -h",
			 name, why == ENOENT || why == ENODEV ||
			 why == EOPNOTSUPP ? "no PMU, or no such event" :
			 strerror(why));
		return -EOPNOTSUPP;
	}
	if (ival && parse_interval(ival, c->period, &c->period)) {
		snprintf(msg, len, "-h: '%s' is not an interval for %s (a positive number, on, hi or lo)",
			 ival, name);
		return -EINVAL;
	}
	for (i = 0; i < o->nr_counters; i++)
		if (o->counters[i].type == c->type &&
		    o->counters[i].config == c->config) {
			snprintf(msg, len, "-h: counter '%s' given twice", name);
			return -EINVAL;
		}
	snprintf(c->name, sizeof(c->name), "%s", name);
	o->nr_counters++;
	return 0;
}

int counters_parse(const char *arg, struct rec_opts *o, char *msg,
		   size_t len)
{
	char *copy = strdup(arg), *tok[2 * LWPROF_MAX_COUNTERS + 2];
	char *t;
	unsigned int n = 0, i, names;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	/* strtok would hide empty fields: "cycles,,insts" is an error. */
	for (t = copy; n < N(tok); n++) {
		tok[n] = t;
		t = strchr(t, ',');
		if (!t) {
			n++;
			break;
		}
		*t++ = 0;
	}
	for (i = 0, names = o->nr_counters; i < n; i++)
		names += !is_interval(tok[i]);
	if (t || names > LWPROF_MAX_COUNTERS) {
		snprintf(msg, len, "-h: at most %d counters", LWPROF_MAX_COUNTERS);
		err = -E2BIG;
	}
	for (i = 0; !err && i < n; i++) {
		const char *ival = NULL;

		if (!*tok[i] || is_interval(tok[i])) {
			snprintf(msg, len, "-h: expected a counter name, got '%s' in '%s'",
				 tok[i], arg);
			err = -EINVAL;
			break;
		}
		if (i + 1 < n && is_interval(tok[i + 1]))
			ival = tok[i + 1];
		err = add_one(tok[i], ival, o, msg, len);
		if (ival)
			i++;
	}
	free(copy);
	return err;
}
