// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frames (samples recorded with -K carry kips[], leaf first): they
 * go below the user leaf, in one pseudo load object, [kernel.kallsyms].
 * Their functions come from the /proc/kallsyms copy the recorder saves as
 * archives/kallsyms (the first experiment that has one: the experiments of
 * one run share a kernel); a pc is in the text symbol at or below it.
 * Without a copy (or past the last symbol) a frame is named by its address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

struct ksym {
	uint64_t addr;
	char *name;
	uint32_t func;		/* made on first use, or UINT32_MAX */
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* archives/kallsyms of e: "ADDR TYPE NAME[\t[MODULE]]", text symbols kept */
static int load_file(struct an *an, struct an_exp *e)
{
	char path[4200], line[1024];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/archives/kallsyms", e->dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		char type, name[512];
		unsigned long long a;
		struct ksym *k;

		if (sscanf(line, "%llx %c %511s", &a, &type, name) != 3 || !a ||
		    (type != 'T' && type != 't' && type != 'W' && type != 'w'))
			continue;
		k = an_vec_push(&an->ksyms);
		if (!k) {
			err = -ENOMEM;
			break;
		}
		k->addr = a;
		k->func = UINT32_MAX;
		k->name = strdup(name);
		if (!k->name)
			err = -ENOMEM;
	}
	fclose(f);
	if (!err)
		qsort(an->ksyms.p, an->ksyms.n, an->ksyms.esz, ksym_cmp);
	return err;
}

uint32_t an_kernel_obj(struct an *an)
{
	size_t i;

	if (an->o_kernel != UINT32_MAX)
		return an->o_kernel;
	an->ksyms.esz = sizeof(struct ksym);
	for (i = 0; i < an->exps.n && !an->ksyms.n; i++)
		if (load_file(an, &AN_VEC(an->exps, struct an_exp, i)))
			return UINT32_MAX;
	an->o_kernel = an_obj_get(an, 0, "[kernel.kallsyms]", 0, 0, 0, true);
	return an->o_kernel;
}

/* The function of a kernel pc (ret: a return address, look at ip - 1). */
uint32_t an_kernel_func(struct an *an, uint64_t ip, bool ret)
{
	uint64_t look = ret ? ip - 1 : ip;
	struct ksym *k = an->ksyms.p;
	size_t lo = 0, hi = an->ksyms.n, mid;
	char name[32];

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (k[mid].addr <= look)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == an->ksyms.n) {
		/*
		 * no symbols, or below the first / past the last one: the
		 * frame's address as recorded
		 */
		snprintf(name, sizeof(name), "0x%" PRIx64, ip);
		return an_obj_fname(an, an->o_kernel, name, ip, 0);
	}
	k = &k[lo - 1];
	if (k->func == UINT32_MAX)
		k->func = an_obj_fname(an, an->o_kernel, k->name, k->addr,
				       k[1].addr - k->addr);
	return k->func;
}

/*
 * The scheduler's functions that an off-CPU stack (LWPROF_RS_KBLOCK)
 * begins with: __schedule, then how it was called (schedule, preemption,
 * the timeout and I/O variants).  They are folded into the call that
 * blocked, so that its time lands on do_nanosleep, futex_wait_queue,
 * pipe_read, ... (a prefix ends with '*').
 */
static const char *const sched_funcs[] = {
	"__schedule", "schedule", "schedule_idle", "schedule_preempt_disabled",
	"preempt_schedule*", "schedule_timeout*", "schedule_hrtimeout*",
	"io_schedule*",
};

static bool is_sched(const char *name)
{
	size_t i, n;

	for (i = 0; i < sizeof(sched_funcs) / sizeof(sched_funcs[0]); i++) {
		n = strlen(sched_funcs[i]);
		if (sched_funcs[i][n - 1] == '*' ?
		    !strncmp(name, sched_funcs[i], n - 1) : !strcmp(name, sched_funcs[i]))
			return true;
	}
	return false;
}

/*
 * How many of the off-CPU kernel frames kips[0..n) (leaf first, return
 * addresses) are the scheduler's, to be folded; the last frame stays.
 */
uint32_t an_kernel_sched(struct an *an, const uint64_t *kips, uint32_t n)
{
	uint32_t i, f;

	for (i = 0; i + 1 < n; i++) {
		if (!kips[i])
			break;
		f = an_kernel_func(an, kips[i], true);
		if (f == UINT32_MAX ||
		    !is_sched(AN_VEC(an->funcs, struct an_func, f).name))
			break;
	}
	return i;
}

void an_kernel_free(struct an *an)
{
	size_t i;

	for (i = 0; i < an->ksyms.n; i++)
		free(AN_VEC(an->ksyms, struct ksym, i).name);
	free(an->ksyms.p);
	an->ksyms.p = NULL;
	an->ksyms.n = 0;
}
