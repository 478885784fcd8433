// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF CFI unwinding of the samples that carry registers and a copy of
 * the top of the user stack (code built without frame pointers).  Each
 * address space gets one libdwfl session: its mappings reported with
 * dwfl_report_elf at their load bias, and dwfl_attach_state with callbacks
 * that serve the current sample: set_initial_registers from the record's
 * registers (already in DWARF order), memory_read from the stack copy,
 * else from the mapped files.  Each step is taken from the per-pc cache of
 * CFI rules (unwcache.c) where it can say it, else libdwfl walks the
 * sample.  libdwfl keeps each module's CFI, and a leaf
 * pc with no CFI is remembered so its samples keep their frame-pointer
 * stack without another try.  A walk that stopped short (one step, or
 * the copy's end) with fewer frames than the frame pointers goes on with
 * theirs from the deepest frame both have (fp_splice()); any other walk
 * wins over the chain.  A stack is cut (<Truncated-stack>)
 * when the one kept is: the walk's, by the end of the copy or UNW_MAX;
 * the frame pointers', by the recorder's depth (LWPROF_RS_TRUNC).
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/symbols/internal.h"
#include "libexp/format.h"
#include "libexp/progress.h"
#include "libexp/reader.h"
#include "libexp/sample.h"
#include "libexp/stack.h"
#include "libexp/trace.h"

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unw *u = arg;

	if (u->given)
		return 0;
	u->given = true;
	*thread_argp = u;
	return u->tid;
}

static bool unw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			    void *arg)
{
	uint64_t v;

	if (!unw_read(arg, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool unw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unw *u = arg;

	/* all 17, rip too: a CFA expression may read it (the PLT's does) */
	if (!dwfl_thread_state_registers(thread, 0, LWPROF_NR_REGS, u->regs))
		return false;
	dwfl_thread_state_register_pc(thread, u->regs[LWPROF_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks unw_cb = {
	.next_thread = unw_next_thread,
	.get_thread = unw_get_thread,
	.memory_read = unw_memory_read,
	.set_initial_registers = unw_set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unw *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act) || u->n >= UNW_MAX)
		return DWARF_CB_ABORT;
	if (!pc)
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	return DWARF_CB_OK;
}

/*
 * What a libdwfl session of an address space is made of: its mappings of
 * files (object, start, offset).  Forked processes that exec nothing have
 * their parent's, and share its session: a session holds its modules' ELF
 * data and CFI, and a recording of a few hundred short-lived processes
 * each with its own took 4.3 GB to print.  The sample's own space still
 * answers every read (u->as, file_read()).
 */
static uint64_t maps_hash(const struct an_as *a)
{
	uint64_t h = a->maps.n;
	size_t i;

	for (i = 0; i < a->maps.n; i++) {
		const struct an_map *m = &AN_VEC(a->maps, struct an_map, i);

		h = an_mix(an_mix(an_mix(h, m->obj), m->start), m->pgoff);
	}
	return h;
}

static bool maps_eq(void *ctx, uint32_t id, const void *key)
{
	const struct an_as *a = &AN_VEC(((struct an *)ctx)->as, struct an_as, id);
	const struct an_as *b = key;
	size_t i;

	if (a->maps.n != b->maps.n)
		return false;
	for (i = 0; i < a->maps.n; i++) {
		const struct an_map *m = &AN_VEC(a->maps, struct an_map, i);
		const struct an_map *n = &AN_VEC(b->maps, struct an_map, i);

		if (m->obj != n->obj || m->start != n->start ||
		    m->pgoff != n->pgoff)
			return false;
	}
	return true;
}

/* The address space's libdwfl session, made (or shared) on first use. */
static Dwfl *as_dwfl(struct an *an, struct an_as *a, struct unw *u)
{
	uint64_t h;
	uint32_t id;
	size_t i;
	Dwfl *d;

	if (a->dwfl)
		return a->dwfl == (void *)-1 ? NULL : a->dwfl;
	a->dwfl = (void *)-1;
	h = maps_hash(a);
	id = an_htab_find(&u->sessions, h, maps_eq, an, a);
	if (id != UINT32_MAX) {
		d = AN_VEC(an->as, struct an_as, id).dwfl;
		if (d == (void *)-1)
			return NULL;
		a->dwfl = d;
		a->dwfl_shared = true;
		return d;
	}
	if (an_htab_add(&u->sessions, h, a - (struct an_as *)an->as.p))
		return NULL;
	d = an_dwfl_proc_cb(an) ? dwfl_begin(an_dwfl_proc_cb(an)) : NULL;
	if (!d)
		return NULL;
	dwfl_report_begin(d);
	for (i = 0; i < a->maps.n; i++) {
		struct an_map *m = &AN_VEC(a->maps, struct an_map, i);
		struct an_obj *o = &AN_VEC(an->objs, struct an_obj, m->obj);
		uint64_t vaddr;

		if (o->pseudo || an_obj_open(an, m->obj))
			continue;
		o = &AN_VEC(an->objs, struct an_obj, m->obj);
		if (an_obj_vaddr(an, m->obj, m->pgoff, &vaddr))
			continue;
		/* ET_DYN: placed so that vaddr lands at start; ET_EXEC: ignored */
		dwfl_report_elf(d, o->name, o->file, -1, m->start - vaddr, false);
	}
	if (dwfl_report_end(d, NULL, NULL) ||
	    !dwfl_attach_state(d, NULL, a->pid, &unw_cb, u)) {
		dwfl_end(d);
		return NULL;
	}
	a->dwfl = d;
	return d;
}

/*
 * The records are read again through the one reader (exp_reader_at):
 * the deferred samples come in file order, so one read serves hundreds;
 * a second reader of the file fetches the bases of delta copies.
 */
struct rdfile {
	uint64_t key;
	bool open;
	struct exp_reader cur, bases;
};

static void rdfile_close(struct rdfile *f)
{
	if (f->open) {
		exp_reader_close(&f->cur);
		exp_reader_close(&f->bases);
	}
	f->open = false;
}

/* One record whole from its file, checked; NULL if unreadable. */
static const uint8_t *read_record(struct an *an, struct an_unw_ref *r,
				  struct rdfile *f)
{
	struct an_exp *e = &AN_VEC(an->exps, struct an_exp, r->exp);
	uint64_t key = (uint64_t)r->exp << 32 | r->file;
	const struct lwprof_rec *h;
	int ea, eb;

	if (!f->open || f->key != key) {
		rdfile_close(f);
		/* the first pass showed its warnings */
		ea = exp_file_open(e->x, r->file, &f->cur, NULL, NULL);
		eb = exp_file_open(e->x, r->file, &f->bases, NULL, NULL);
		f->key = key;
		f->open = true;
		if (ea || eb) {
			rdfile_close(f);
			return NULL;
		}
	}
	if (exp_reader_at(&f->cur, r->off, &h) != 1)
		return NULL;
	return exp_stack_rec(h);	/* a traced call's too */
}

static bool noframes_eq(void *ctx, uint32_t id, const void *key)
{
	return true;
}

/*
 * One sample: with the per-pc cache, else (or where the cache gives up)
 * with libdwfl.  LWPROF_UNWIND=check does both and counts the samples
 * whose frames differ (the cache's test): all of them, or where the cache
 * gave up, those it had found.
 */
static int unwind_one(struct an *an, struct an_ucache *c, Dwfl *d,
		      uint32_t as, struct unw *u)
{
	uint64_t ips[UNW_MAX];
	uint32_t n;
	int err = 1;

	if (c && d) {
		err = an_ucache_walk(c, d, as, u);
		if (err < 0)
			return err;
	}
	if (err == 1 || an->run->unwind_check) {
		/* what the cache did: all frames, or those before it gave up */
		n = c && d ? u->n : 0;
		memcpy(ips, u->ips, n * 8);
		u->n = 0;
		u->given = false;
		if (d)
			dwfl_getthread_frames(d, u->tid, frame_cb, u);
		if (an->run->unwind_check && ((!err && n != u->n) || n > u->n ||
					 memcmp(ips, u->ips, n * 8)))
			an->run->unwind_differ++;
		if (err == 1)
			an->run->unwind_libdwfl++;
	}
	return 0;
}

static double cpu_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The walk found n frames, fewer than the frame pointers' nf (fp): it
 * stopped early, as where the CFI of an epilogue places a register
 * already popped below sp.  The frame pointers go on: keep them, with
 * the walk's frames down to the deepest one they share (a frame-pointer
 * chain only skips frames, never adds one), so that a leaf whose frame
 * is not set up (its prologue, its epilogue, none) keeps its caller,
 * which the chain skips.  With no frame shared but the pc, a 2-frame
 * walk is exactly that case: its caller, then the chain after the pc.
 * Returns the frames in u->ips; false: they share none, keep the walk.
 */
static bool fp_splice(struct unw *u, const uint64_t *fp, uint32_t nf)
{
	uint32_t k, j, n = u->n;

	for (k = n - 1; k >= 1; k--)
		for (j = k < nf - 1 ? k : nf - 1; j >= 1; j--)
			if (fp[j] == u->ips[k])
				goto found;
	if (n != 2 || fp[0] != u->ips[0])
		return false;
	k = 1;
	j = 0;
found:
	if (k + 1 + (nf - j - 1) > UNW_MAX)
		return false;
	memcpy(u->ips + k + 1, fp + j + 1, 8 * (size_t)(nf - j - 1));
	u->n = k + 1 + (nf - j - 1);
	return true;
}

/* Unwind the sample of r from rec, its record whole. */
static int unwind_rec(struct an *an, struct an_ucache *c, struct unw *u,
		      struct an_htab *nocfi, const struct an_unw_ref *r,
		      const uint8_t *rec, double *walk)
{
	struct an_as *a = &AN_VEC(an->as, struct an_as, r->as);
	const struct lwprof_rec_sample *s;
	struct timespec w0, w1;
	uint32_t raw, nk, flags;
	uint64_t h;
	int err;

	s = (const void *)rec;
	u->an = an;
	u->as = a;
	u->n = 0;
	u->given = false;
	u->regs = (const uint64_t *)exp_sample_regs(s);
	u->stack = exp_sample_stack(s, LWPROF_NR_REGS);
	u->sp = u->regs[LWPROF_REG_SP];
	u->stack_size = s->stack_size;
	u->copy_full = s->stack_size &&
		       s->stack_size >= AN_VEC(an->exps, struct an_exp,
					       r->exp).log->stack_bytes;
	u->cut = false;
	u->tid = s->tid;
	h = an_mix(r->as, u->regs[LWPROF_REG_IP]);
	if (an_htab_find(nocfi, h, noframes_eq, NULL, NULL) != UINT32_MAX) {
		an->run->unwind_cached++;
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &w0);
	err = unwind_one(an, c, as_dwfl(an, a, u), r->as, u);
	clock_gettime(CLOCK_MONOTONIC, &w1);
	*walk += (w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) / 1e9;
	if (err)
		return err;
	if (u->n <= 1) {
		/* no CFI here: keep the frame-pointer stack, and remember */
		an->run->unwind_fail++;
		return an_htab_add(nocfi, h, 0);
	}
	/*
	 * A walk that stopped short (after one step, or at the copy's end)
	 * with fewer frames than the chain: the chain goes on, where it
	 * agrees.  Elsewhere the walk wins: code without frame pointers
	 * leaves rbp to anything, and perf follows it for up to its depth.
	 */
	flags = r->flags & ~(AN_RAW_UNKNOWN | AN_RAW_TRUNC);
	if (u->n < s->nr_user && (u->n == 2 || u->cut) &&
	    fp_splice(u, (const uint64_t *)exp_sample_ips(s, LWPROF_NR_REGS),
		      s->nr_user)) {
		flags |= r->flags & AN_RAW_TRUNC;	/* the chain's end */
	} else if (u->cut || u->n >= UNW_MAX) {
		flags |= AN_RAW_TRUNC;
	}
	/* -K: the record's kernel frames stay below the user leaf */
	nk = r->flags >> AN_RAW_KSHIFT;
	memcpy(u->ips + u->n, exp_sample_kips(s, LWPROF_NR_REGS), 8 * nk);
	raw = an_raw_intern(an, r->as, u->ips, u->n + nk, flags);
	if (raw == UINT32_MAX)
		return -ENOMEM;
	an->s.stack[r->sample] = raw;
	an->run->unwind_ok++;
	return 0;
}

int an_unwind_all(struct an *an)
{
	const char *mode = getenv("LWPROF_UNWIND");
	struct an_htab nocfi = { 0 };
	struct an_ucache *c = NULL;
	struct rdfile *f;
	double t0 = cpu_secs(), walk = 0;
	struct unw *u;
	int err = 0;
	size_t i;

	if (!an->ld->deferred.n)
		return 0;
	an->run->unwind_check = mode && !strcmp(mode, "check");
	/* one state for all sessions: dwfl_attach_state keeps its pointer */
	u = calloc(1, sizeof(*u));
	f = calloc(1, sizeof(*f));
	if (!mode || strcmp(mode, "nocache"))
		c = an_ucache_new();
	if (!u || !f || (!c && (!mode || strcmp(mode, "nocache")))) {
		free(u);
		free(f);
		an_ucache_free(c);
		return an_errf(an, -ENOMEM, "out of memory");
	}

	exp_progress_phase(an->run->progress, an->ld->deferred.n,
			   "unwinding %zu stacks", an->ld->deferred.n);
	for (i = 0; i < an->ld->deferred.n; i++) {
		struct an_unw_ref *r = &AN_VEC(an->ld->deferred, struct an_unw_ref, i);
		const uint8_t *rec = read_record(an, r, f);
		uint8_t *owned = NULL;

		if (!(i & 1023))
			exp_progress_add(an->run->progress, i ? 1024 : 0);
		if (rec)	/* a delta copy rebuilt (libexp/stack.h) */
			rec = exp_stack_whole(exp_stacks(AN_VEC(an->exps, struct an_exp,
								r->exp).x),
					      r->file, r->off, &f->bases, rec, &owned);
		if (!rec) {
			an->run->unwind_fail++;
			continue;
		}
		err = unwind_rec(an, c, u, &nocfi, r, rec, &walk);
		free(owned);
		if (err)
			break;
	}
	exp_progress_end(an->run->progress);
	rdfile_close(f);
	free(f);
	an_htab_free(&nocfi);
	an_htab_free(&u->sessions);
	free(u);
	an->run->unwind_secs = cpu_secs() - t0;
	if (c)
		an_ucache_counts(c, &an->run->unwind_steps, &an->run->unwind_lookups);
	an_ucache_free(c);
	if (getenv("LWPROF_UNWIND_STATS"))
		fprintf(stderr, "lwprof print: unwind %s: %zu samples, %.3f s CPU, walks %.3f s elapsed, %lu unwound, %lu kept frame pointers (%lu known pcs without CFI), %lu cached steps for %lu frames, %lu samples by libdwfl, %lu differ\n",
			c ? (an->run->unwind_check ? "check" : "cache") : "nocache",
			an->ld->deferred.n, an->run->unwind_secs, walk, an->run->unwind_ok,
			an->run->unwind_fail + an->run->unwind_cached, an->run->unwind_cached,
			an->run->unwind_steps, an->run->unwind_lookups, an->run->unwind_libdwfl,
			an->run->unwind_differ);
	if (err)
		return an_errf(an, -ENOMEM, "out of memory");
	return 0;
}

void an_unwind_free(struct an *an)
{
	size_t i;

	for (i = 0; i < an->as.n; i++) {
		struct an_as *a = &AN_VEC(an->as, struct an_as, i);

		if (a->dwfl && a->dwfl != (void *)-1 && !a->dwfl_shared)
			dwfl_end(a->dwfl);
		a->dwfl = NULL;
		a->dwfl_shared = false;
	}
}
