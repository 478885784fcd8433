// SPDX-License-Identifier: GPL-2.0
/*
 * usage.txt (exp.h): one line per thread of the module's precise totals,
 * "pid tid ppid flags start_ns end_ns", the ten microstates' ns in
 * LWPROF_MS_* order, "vcsw ivcsw minflt majflt syscalls signals comm".
 * Written by writer.c through exp_usage_put(), read by exp_open().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/format.h"
#include "libexp/internal.h"

bool exp_usage_expected(const struct exp_info *log)
{
	return (log->clock_interval_ns || log->nr_counters) &&
	       (!log->backend || !strcmp(log->backend, "module")) &&
	       !log->flight;
}

void exp_usage_put_head(FILE *f)
{
	fprintf(f, "# pid tid ppid flags start_ns end_ns user system trap tflt dflt kflt lock sleep stop wait vcsw ivcsw minflt majflt syscalls signals comm\n");
}

void exp_usage_put(FILE *f, const struct lwprof_thread_usage *tu, size_t n)
{
	size_t i;
	int j;

	for (i = 0; i < n; i++) {
		const struct lwprof_thread_usage *t = &tu[i];
		char comm[sizeof(t->comm) + 1];

		fprintf(f, "%u %u %u 0x%x %llu %llu", t->pid, t->tid, t->ppid,
			t->flags, (unsigned long long)t->start_ns,
			(unsigned long long)t->end_ns);
		for (j = 0; j < LWPROF_MS_COUNT; j++)
			fprintf(f, " %llu", (unsigned long long)t->mstate_ns[j]);
		fprintf(f, " %llu %llu %llu %llu %llu %llu",
			(unsigned long long)t->vcsw,
			(unsigned long long)t->ivcsw,
			(unsigned long long)t->minflt,
			(unsigned long long)t->majflt,
			(unsigned long long)t->syscalls,
			(unsigned long long)t->signals);
		memcpy(comm, t->comm, sizeof(t->comm));
		comm[sizeof(t->comm)] = 0;
		for (j = 0; comm[j]; j++)
			if ((unsigned char)comm[j] < 0x20 || comm[j] == 0x7f)
				comm[j] = '?';
		fprintf(f, " %s\n", comm);
	}
}

/* One line's fields into u: 0 or -EINVAL. */
static int usage_line(char *s, struct exp_usage *u)
{
	char *tok[22], *save = NULL, *end;
	int i;

	for (i = 0; i < 22; i++) {
		tok[i] = strtok_r(i ? NULL : s, " \t", &save);
		if (!tok[i])
			return -EINVAL;
	}
	if (exp_parse_u32(tok[0], &u->pid) || exp_parse_u32(tok[1], &u->tid) ||
	    exp_parse_u32(tok[2], &u->ppid) ||
	    exp_parse_u64(tok[4], &u->start_ns) ||
	    exp_parse_u64(tok[5], &u->end_ns))
		return -EINVAL;
	errno = 0;
	u->flags = strtoul(tok[3], &end, 16);
	if (errno || *end)
		return -EINVAL;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (exp_parse_u64(tok[6 + i], &u->ms[i]))
			return -EINVAL;
	if (exp_parse_u64(tok[16], &u->vcsw) ||
	    exp_parse_u64(tok[17], &u->ivcsw) ||
	    exp_parse_u64(tok[18], &u->minflt) ||
	    exp_parse_u64(tok[19], &u->majflt) ||
	    exp_parse_u64(tok[20], &u->syscalls) ||
	    exp_parse_u64(tok[21], &u->signals))
		return -EINVAL;
	s = strtok_r(NULL, "", &save);
	snprintf(u->comm, sizeof(u->comm), "%s", s ? s : "");
	return 0;
}

/* One row of usage.txt into x: 0, -EINVAL or -ENOMEM. */
static int usage_add(struct exp *x, char *s)
{
	struct exp_usage *u;

	if (exp_grow((void **)&x->usage, sizeof(*x->usage), x->nusage,
		     &x->cusage))
		return -ENOMEM;
	u = &x->usage[x->nusage];
	memset(u, 0, sizeof(*u));
	if (usage_line(s, u))
		return -EINVAL;
	x->nusage++;
	return 0;
}

int exp_usage_read(struct exp *x)
{
	int err = exp_text_each(x, EXP_USAGE, "usage", usage_add);

	x->has_usage = err != -ENOENT;
	return err == -ENOENT ? 0 : err;
}
