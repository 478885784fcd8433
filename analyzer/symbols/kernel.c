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
 * Where the kernel's debug image is installed (kdebug.c) a pc's address in
 * it gives lines.c its line: an_kernel_dwaddr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/symbols.h"
#include "libexp/format.h"

struct ksym {
	uint64_t addr;
	char *name;
	uint32_t mod;		/* index in an->kmods; 0: the core kernel */
	uint32_t func;		/* made on first use, or UINT32_MAX */
	bool dtried, dok;	/* a module's: daddr looked up, found */
	uint64_t daddr;		/* its address in the module's debug image */
};

/* The core kernel (index 0) or a module, as named in kallsyms. */
struct kmod {
	char *name;		/* "[kernel.kallsyms]", "[ext4]" */
	uint64_t start, end;	/* from archives/modules, or 0 */
	uint32_t obj;		/* made on first use, or UINT32_MAX */
	char *dpath;		/* a module's debug image (kdebug.c), or NULL */
	bool dtried, dok;	/* debug image opened (into obj's o->mod) */
	uint64_t bias;		/* the core kernel's: kallsyms - image (KASLR) */
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

struct ksyms_ctx {
	struct an *an;
	uint32_t mod;		/* the last line's: kallsyms keeps a module's together */
};

/* A line of the kallsyms copy: a text symbol kept, in its module. */
static int kallsyms_line(void *arg, uint64_t a, char type, const char *name,
			 const char *mname)
{
	struct ksyms_ctx *c = arg;
	struct an *an = c->an;
	struct ksym *k;

	if (!a || (type != 'T' && type != 't' && type != 'W' && type != 'w'))
		return 0;
	c->mod = mname && mname[0] == '[' ? kmod_get(an, mname, c->mod) : 0;
	k = an_vec_push(&an->ksyms);
	if (!k || c->mod == UINT32_MAX)
		return -ENOMEM;
	k->addr = a;
	k->mod = c->mod;
	k->func = UINT32_MAX;
	k->name = strdup(name);
	return k->name ? 0 : -ENOMEM;
}

/* The kallsyms copy of e: "ADDR TYPE NAME[\t[MODULE]]", text symbols kept */
static int load_kallsyms(struct an *an, struct an_exp *e)
{
	struct ksyms_ctx c = { an, 0 };
	int err = exp_kallsyms(e->x, kallsyms_line, &c);

	if (err == -ENOENT)
		return 0;
	if (!err)
		qsort(an->ksyms.p, an->ksyms.n, an->ksyms.esz, ksym_cmp);
	return err;
}

/* A module of the /proc/modules copy: its range. */
static int modules_line(void *arg, const char *name, uint64_t size,
			uint64_t a)
{
	struct an *an = arg;
	char bracketed[84];
	struct kmod *m;
	uint32_t i;

	if (!a || !size)
		return 0;
	snprintf(bracketed, sizeof(bracketed), "[%s]", name);
	i = kmod_get(an, bracketed, 0);
	if (i == UINT32_MAX)
		return -ENOMEM;
	m = &AN_VEC(an->kmods, struct kmod, i);
	m->start = a;
	m->end = a + size;
	return 0;
}

/*
 * The /proc/modules copy of e: "NAME SIZE REFS DEPS STATE ADDR ...":
 * each module's range (its core: text, then data); addresses of 0
 * (hidden) are left out.
 */
static int load_modules(struct an *an, struct an_exp *e)
{
	int err = exp_modules(e->x, modules_line, an);

	return err == -ENOENT ? 0 : err;
}

/* Once: kernel frames that cannot be named, and why; what to do. */
static void warn_unnamed(struct an *an)
{
	const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, 0);

	an_warn(an, "%s: no copy of /proc/kallsyms (" EXP_KALLSYMS "): kernel frames cannot be named and show as addresses%s",
		e->name, e->log->kallsyms_hidden ?
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
		struct an_exp *e = &AN_VEC(an->exps, struct an_exp, i);

		err = load_kallsyms(an, e);
		if (!err && an->ksyms.n) {
			err = load_modules(an, e);
			an->krelease = e->log->kernel;	/* for debug images */
		}
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
 * load, keeps its kallsyms line when ftrace was hooking functions then):
 * it ends at the next symbol.
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

/*
 * The symbol holding pc look (its index, its end in *end), or SIZE_MAX:
 * in a module's range only that module's.
 */
static size_t ksym_at(struct an *an, uint64_t look, uint32_t in, uint64_t *end)
{
	struct ksym *k = an->ksyms.p;
	size_t lo = 0, hi = an->ksyms.n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (k[mid].addr <= look)
			lo = mid + 1;
		else
			hi = mid;
	}
	*end = lo ? ksym_end(an, lo - 1) : 0;
	if (lo && look < *end && (in == UINT32_MAX || in == k[lo - 1].mod))
		return lo - 1;
	return SIZE_MAX;
}

/* The function of a kernel pc (ret: a return address, look at ip - 1). */
uint32_t an_kernel_func(struct an *an, uint64_t ip, bool ret)
{
	uint64_t look = ret ? ip - 1 : ip, end;
	uint32_t in = kmod_at(an, look), obj;
	size_t i = ksym_at(an, look, in, &end);
	struct ksym *k;
	char name[32];

	if (i != SIZE_MAX) {
		k = &AN_VEC(an->ksyms, struct ksym, i);
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

/* an_kdebug_modules' report: module name's debug image is at path. */
static void ko_found(struct an *an, const char *name, const char *path)
{
	char b[84];
	size_t i;

	snprintf(b, sizeof(b), "[%s]", name);
	for (i = 1; i < an->kmods.n; i++) {
		struct kmod *m = &AN_VEC(an->kmods, struct kmod, i);

		if (!m->dpath && !strcmp(m->name, b)) {
			m->dpath = strdup(path);
			return;
		}
	}
}

/* The kallsyms address of the core kernel's _text (else _stext), or 0. */
static uint64_t core_text(struct an *an, const char **name)
{
	static const char *const names[] = { "_text", "_stext" };
	size_t i, j;

	for (j = 0; j < 2; j++)
		for (i = 0; i < an->ksyms.n; i++) {
			struct ksym *k = &AN_VEC(an->ksyms, struct ksym, i);

			if (!k->mod && !strcmp(k->name, names[j])) {
				*name = names[j];
				return k->addr;
			}
		}
	return 0;
}

/*
 * Whether the core kernel's image is the recorded kernel's: most of the
 * first (up to 16) core functions it has are at their kallsyms address
 * less the bias (a static function's name may be there twice).
 */
static bool core_agrees(struct an *an, uint32_t obj, uint64_t bias)
{
	int agree = 0, n = 0;
	uint64_t a;
	size_t i;

	for (i = 0; i < an->ksyms.n && n < 16; i++) {
		struct ksym *k = &AN_VEC(an->ksyms, struct ksym, i);

		if (k->mod || an_kdebug_sym(an, obj, k->name, &a))
			continue;
		n++;
		agree += a + bias == k->addr;
	}
	return agree * 2 > n;
}

/*
 * Open kernel object i's debug image once (kdebug.c): the core kernel's
 * related to kallsyms by _text (KASLR moves the whole kernel by one
 * offset), a module's by each function's own symbol (the loader lays out
 * its sections).  Whether it has one.
 */
static bool kmod_debug(struct an *an, uint32_t i)
{
	struct kmod *m = &AN_VEC(an->kmods, struct kmod, i);
	const char *tname = NULL;
	uint64_t text, a;

	if (m->dtried)
		return m->dok;
	m->dtried = true;
	if (!an->krelease || m->obj == UINT32_MAX)
		return false;
	if (i) {
		if (!an->kdebug_walked) {
			an->kdebug_walked = true;
			an_kdebug_modules(an, an->krelease, ko_found);
		}
		m = &AN_VEC(an->kmods, struct kmod, i);
		m->dok = m->dpath && !an_kdebug_module(an, m->obj, m->dpath);
		return m->dok;
	}
	if (an_kdebug_vmlinux(an, m->obj, an->krelease))
		return false;
	text = core_text(an, &tname);
	if (!text || an_kdebug_sym(an, m->obj, tname, &a) ||
	    !core_agrees(an, m->obj, text - a)) {
		an_warn(an, "the debug image vmlinux-%s is not the recorded kernel's (its _text and functions are not where kallsyms has them): kernel frames have no source lines",
			an->krelease);
		an_kdebug_close(an, m->obj);
		return false;
	}
	m->bias = text - a;
	m->dok = true;
	return true;
}

/*
 * The address in kernel object obj's debug image (as lines.c reads it) of
 * the kernel pc look: -ENOENT when it has no image or look no symbol.
 */
int an_kernel_dwaddr(struct an *an, uint32_t obj, uint64_t look,
		     uint64_t *daddr)
{
	uint64_t end;
	size_t i = ksym_at(an, look, kmod_at(an, look), &end);
	struct ksym *k;
	uint32_t mod;

	if (i == SIZE_MAX)
		return -ENOENT;
	mod = AN_VEC(an->ksyms, struct ksym, i).mod;
	if (AN_VEC(an->kmods, struct kmod, mod).obj != obj ||
	    !kmod_debug(an, mod))
		return -ENOENT;
	k = &AN_VEC(an->ksyms, struct ksym, i);
	if (!mod) {
		*daddr = look - AN_VEC(an->kmods, struct kmod, 0).bias;
		return 0;
	}
	if (!k->dtried) {
		k->dtried = true;
		k->dok = !an_kdebug_sym(an, obj, k->name, &k->daddr);
	}
	if (!k->dok)
		return -ENOENT;
	*daddr = k->daddr + (look - k->addr);
	return 0;
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
	for (i = 0; i < an->kmods.n; i++) {
		free(AN_VEC(an->kmods, struct kmod, i).name);
		free(AN_VEC(an->kmods, struct kmod, i).dpath);
	}
	free(an->kmods.p);
	an->kmods.p = NULL;
	an->kmods.n = 0;
	an->krelease = NULL;
	an->kdebug_walked = false;
}
