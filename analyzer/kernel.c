// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frames (samples recorded with -K carry kips[], leaf first): they
 * go below the user leaf, in kernel load objects: [kernel.kallsyms] for
 * the core kernel, one per module ("[ext4]", as perf names them).  Their
 * functions come from the /proc/kallsyms copy the recorder saves as
 * archives/kallsyms (the first experiment that has one: the experiments
 * of one run share a kernel), a module's symbols by the "[MODULE]" their
 * lines end with; a pc is in the text symbol at or below it.  The
 * recorder's copy of /proc/modules (archives/modules) gives each module's
 * address range, so that a pc in a module is the module's even where
 * kallsyms has no symbol for it, and a module's last symbol ends with it.
 * Without a copy (or outside the symbols) a frame is named by its address.
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
	uint32_t mod;		/* index in an->kmods; 0: the core kernel */
	uint32_t func;		/* made on first use, or UINT32_MAX */
};

/* The core kernel (index 0) or a module, as named in kallsyms. */
struct kmod {
	char *name;		/* "[kernel.kallsyms]", "[ext4]" */
	uint64_t start, end;	/* from archives/modules, or 0 */
	uint32_t obj;		/* made on first use, or UINT32_MAX */
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The index of the module named name ("[ext4]"), added if new. */
static uint32_t kmod_get(struct an *an, const char *name, uint32_t hint)
{
	struct kmod *m;
	size_t i;

	if (hint < an->kmods.n &&
	    !strcmp(AN_VEC(an->kmods, struct kmod, hint).name, name))
		return hint;	/* kallsyms lists a module's symbols together */
	for (i = 0; i < an->kmods.n; i++)
		if (!strcmp(AN_VEC(an->kmods, struct kmod, i).name, name))
			return i;
	m = an_vec_push(&an->kmods);
	if (!m)
		return UINT32_MAX;
	m->obj = UINT32_MAX;
	m->name = strdup(name);
	return m->name ? an->kmods.n - 1 : UINT32_MAX;
}

/* archives/kallsyms of e: "ADDR TYPE NAME[\t[MODULE]]", text symbols kept */
static int load_kallsyms(struct an *an, struct an_exp *e)
{
	char path[4200], line[1024];
	uint32_t mod = 0;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/archives/kallsyms", e->dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		char type, name[512], mname[80];
		unsigned long long a;
		struct ksym *k;
		int n;

		n = sscanf(line, "%llx %c %511s %79s", &a, &type, name, mname);
		if (n < 3 || !a ||
		    (type != 'T' && type != 't' && type != 'W' && type != 'w'))
			continue;
		mod = n == 4 && mname[0] == '[' ? kmod_get(an, mname, mod) : 0;
		k = an_vec_push(&an->ksyms);
		if (!k || mod == UINT32_MAX) {
			err = -ENOMEM;
			break;
		}
		k->addr = a;
		k->mod = mod;
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

/*
 * archives/modules of e, /proc/modules: "NAME SIZE REFS DEPS STATE ADDR
 * ...": each module's range (its core: text, then data); addresses of 0
 * (hidden) are left out.
 */
static int load_modules(struct an *an, struct an_exp *e)
{
	char path[4200], line[1024], name[80], bracketed[84];
	unsigned long long size, a;
	struct kmod *m;
	uint32_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/archives/modules", e->dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%79s %llu %*s %*s %*s %llx", name, &size, &a) != 3 ||
		    !a || !size)
			continue;
		snprintf(bracketed, sizeof(bracketed), "[%s]", name);
		i = kmod_get(an, bracketed, 0);
		if (i == UINT32_MAX) {
			fclose(f);
			return -ENOMEM;
		}
		m = &AN_VEC(an->kmods, struct kmod, i);
		m->start = a;
		m->end = a + size;
	}
	fclose(f);
	return 0;
}

/* Once: kernel frames that cannot be named, and why; what to do. */
static void warn_unnamed(struct an *an)
{
	const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, 0);

	an_warn(an, "%s: no copy of /proc/kallsyms (archives/kallsyms): kernel frames cannot be named and show as addresses%s",
		e->name, e->kallsyms_hidden ?
		"; the recorder saw only zero addresses there (kernel.kptr_restrict): record as root or with CAP_SYSLOG (kptr_restrict 0 or 1), or with kernel.kptr_restrict=0 and kernel.perf_event_paranoid <= 1 for any user" :
		"");
}

uint32_t an_kernel_obj(struct an *an)
{
	struct kmod *core;
	size_t i;
	int err = 0;

	if (an->o_kernel != UINT32_MAX)
		return an->o_kernel;
	an->ksyms.esz = sizeof(struct ksym);
	an->kmods.esz = sizeof(struct kmod);
	if (kmod_get(an, "[kernel.kallsyms]", 0) == UINT32_MAX)
		return UINT32_MAX;
	for (i = 0; i < an->exps.n && !an->ksyms.n && !err; i++) {
		err = load_kallsyms(an, &AN_VEC(an->exps, struct an_exp, i));
		if (!err && an->ksyms.n)
			err = load_modules(an, &AN_VEC(an->exps, struct an_exp, i));
	}
	if (err)
		return UINT32_MAX;
	if (!an->ksyms.n)
		warn_unnamed(an);
	core = &AN_VEC(an->kmods, struct kmod, 0);
	core->obj = an_obj_kernel(an, core->name);
	an->o_kernel = core->obj;
	return an->o_kernel;
}

/* The object of module i, made on first use. */
static uint32_t kmod_obj(struct an *an, uint32_t i)
{
	struct kmod *m = &AN_VEC(an->kmods, struct kmod, i);

	if (m->obj == UINT32_MAX)
		m->obj = an_obj_kernel(an, m->name);
	return m->obj;
}

/* The module whose range (archives/modules) holds a, or UINT32_MAX. */
static uint32_t kmod_at(struct an *an, uint64_t a)
{
	size_t i;

	for (i = 1; i < an->kmods.n; i++) {
		struct kmod *m = &AN_VEC(an->kmods, struct kmod, i);

		if (a >= m->start && a < m->end)
			return i;
	}
	return UINT32_MAX;
}

/*
 * Where symbol i of n ends: at the next one, and a module's at the end of
 * its module's range; 0 for the last one of an unknown range.  A module's
 * __init function is past that range (its init section, freed after the
 * load, keeps its kallsyms line): it ends at the next symbol.
 */
static uint64_t ksym_end(struct an *an, size_t i)
{
	struct ksym *k = an->ksyms.p;
	struct kmod *m = &AN_VEC(an->kmods, struct kmod, k[i].mod);
	uint64_t end = i + 1 < an->ksyms.n ? k[i + 1].addr : 0;

	if (m->end && k[i].addr < m->end && (!end || end > m->end))
		end = m->end;
	return end;
}

/* The function of a kernel pc (ret: a return address, look at ip - 1). */
uint32_t an_kernel_func(struct an *an, uint64_t ip, bool ret)
{
	uint64_t look = ret ? ip - 1 : ip, end;
	struct ksym *k = an->ksyms.p;
	size_t lo = 0, hi = an->ksyms.n, mid;
	uint32_t in = kmod_at(an, look), obj;
	char name[32];

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (k[mid].addr <= look)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo ? ksym_end(an, lo - 1) : 0;
	if (lo && look < end && (in == UINT32_MAX || in == k[lo - 1].mod)) {
		k = &k[lo - 1];
		obj = kmod_obj(an, k->mod);
		if (k->func == UINT32_MAX && obj != UINT32_MAX)
			k->func = an_obj_fname(an, obj, k->name, k->addr,
					       end - k->addr);
		return k->func;
	}
	/*
	 * no symbols, or below the first / past the last one, or in a
	 * module without one: the frame's address as recorded, in the
	 * module whose range holds it, else in the core kernel
	 */
	obj = in == UINT32_MAX ? an->o_kernel : kmod_obj(an, in);
	if (obj == UINT32_MAX)
		return UINT32_MAX;
	snprintf(name, sizeof(name), "0x%" PRIx64, ip);
	return an_obj_fname(an, obj, name, ip, 0);
}

/* The pc of a kernel frame, in the object of its function. */
uint32_t an_kernel_pc(struct an *an, uint64_t ip, bool ret)
{
	uint32_t f = an_kernel_func(an, ip, ret);

	if (f == UINT32_MAX)
		return UINT32_MAX;
	return an_pc_intern(an, AN_VEC(an->funcs, struct an_func, f).obj, ip,
			    ret);
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
	for (i = 0; i < an->kmods.n; i++)
		free(AN_VEC(an->kmods, struct kmod, i).name);
	free(an->kmods.p);
	an->kmods.p = NULL;
	an->kmods.n = 0;
}
