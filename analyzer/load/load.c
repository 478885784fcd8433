// SPDX-License-Identifier: GPL-2.0
/*
 * Loading experiments: one or several directories into one struct an.
 * Each is opened whole by libexp (exp_open(): its log, usage, archives)
 * and every record file read, unless the commands need none (an->need);
 * then an_finish() gives each exec its own
 * address space, lets a forked process inherit its parent's mappings,
 * gives each sample the mappings of its time (remap.c), unwinds the
 * samples that carry a stack copy, charges each thread's exit packet where
 * its previous packet went, and resolves the stacks.
 */
#include <elfutils/libdwfl.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/load/load.h"
#include "analyzer/model/java.h"
#include "analyzer/model/omp.h"
#include "libexp/format.h"

int an_init(struct an *an, struct an_run *run)
{
	int err;

	memset(an, 0, sizeof(*an));
	an->run = run;
	an->ld = calloc(1, sizeof(*an->ld));
	if (!an->ld)
		return -ENOMEM;
	an->exps.esz = sizeof(struct an_exp);
	an->threads.esz = sizeof(struct an_thread);
	an->as.esz = sizeof(struct an_as);
	an->objs.esz = sizeof(struct an_obj);
	an->funcs.esz = sizeof(struct an_func);
	an->lines.esz = sizeof(struct an_line);
	an->pcs.esz = sizeof(struct an_pc);
	an->nodes.esz = sizeof(struct an_node);
	an->ld->raws.esz = sizeof(struct an_raw);
	an->ld->rawips.esz = sizeof(uint64_t);
	an->ld->deferred.esz = sizeof(struct an_unw_ref);
	an->ld->exits.esz = sizeof(uint32_t);
	an->ld->tasks.esz = sizeof(struct an_task_ev);
	an->obj_keys.esz = sizeof(char *);
	an->tmin = UINT64_MAX;
	an->need = AN_NEED_EVERY;
	an->ld->skip_tmin = UINT64_MAX;
	an->o_kernel = UINT32_MAX;
	an->f_idle = an->f_hardirq = an->f_softirq = UINT32_MAX;
	elf_version(EV_CURRENT);
	if (an_objs_init(an))
		return -ENOMEM;
	an->f_total = an_func_pseudo(an, "<Total>");
	an->f_unknown = an_func_pseudo(an, "<Unknown>");
	an->f_trunc = an_func_pseudo(an, "<Truncated-stack>");
	an->f_noprog = an_func_pseudo(an, "collector_not_program_related");
	if (an->f_noprog == UINT32_MAX)
		return -ENOMEM;
	/* the bases the registry's rows sum: the records', the traced calls' */
	err = an_decode_init(an);
	if (!err)
		err = an_trace_init(an);
	if (!err)
		err = an_omp_init(an);
	return err ? err : an_metrics_init(an);
}

static void exp_free(struct an_exp *e)
{
	size_t i;

	exp_close(e->x);
	free(e->name);
	for (i = 0; i < e->gs.n; i++)
		free(AN_VEC(e->gs, struct an_gs, i).name);
	free(e->gs.p);
	free(e->pauses.p);
	exp_untraced_free(&e->untraced);
}

/* The load-time scratch, after loading or on failure. */
static void load_free(struct an *an)
{
	struct an_load *ld = an->ld;
	size_t i;

	if (!ld)
		return;
	for (i = 0; i < an->exps.n; i++)	/* the stacks are unwound */
		exp_stacks_release(AN_VEC(an->exps, struct an_exp, i).x);
	free(ld->raws.p);
	free(ld->rawips.p);
	free(ld->deferred.p);
	free(ld->exits.p);
	free(ld->tasks.p);
	free(ld->sdec.ctr.p);
	free(ld->sdec.ctr_lay.p);
	an_htab_free(&ld->thr_h);
	an_htab_free(&ld->as_h);
	an_htab_free(&ld->pcs_h);
	an_htab_free(&ld->nodes_h);
	an_htab_free(&ld->raws_t);
	an_htab_free(&ld->lay_h);
	an_omp_load_free(ld->omp);
	free(ld);
	an->ld = NULL;
}

void an_free(struct an *an)
{
	size_t i;

	load_free(an);

	an_unwind_free(an);
	an_kernel_free(an);
	an_spans_free(an);
	an_trace_release(an);
	an_omp_free(an->omp);
	an->omp = NULL;
	an_mpi_release(an);
	an_java_free(an->java);
	for (i = 0; i < an->exps.n; i++)
		exp_free(&AN_VEC(an->exps, struct an_exp, i));
	for (i = 0; i < an->as.n; i++)
		free(AN_VEC(an->as, struct an_as, i).maps.p);
	for (i = 0; i < an->objs.n; i++)
		an_obj_free(&AN_VEC(an->objs, struct an_obj, i));
	for (i = 0; i < an->funcs.n; i++) {
		free(AN_VEC(an->funcs, struct an_func, i).name);
		free(AN_VEC(an->funcs, struct an_func, i).lname);
	}
	an_str_free(&an->strs);
	an_objs_free(an);
	free(an->exps.p);
	free(an->threads.p);
	free(an->as.p);
	free(an->objs.p);
	free(an->funcs.p);
	free(an->lines.p);
	free(an->pcs.p);
	free(an->nodes.p);
	an_htab_free(&an->lines_h);
	free(an->s.time);
	free(an->s.stack);
	free(an->s.thr);
	free(an->s.cpu);
	free(an->s.layout);
	free(an->s.part);
	free(an->s.vals);
	free(an->lay.first.p);
	free(an->lay.items.p);
	an_metrics_free(an);
}

static int load_one(struct an *an, const char *dir)
{
	const struct exp_counter *ctr;
	const struct exp_file *files;
	size_t nfiles, ncpu, i;
	struct an_exp *e;
	struct stat st;
	uint32_t exp;
	bool has_usage;
	int err = 0;

	if (stat(dir, &st))
		return an_errf(an, -errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return an_errf(an, -ENOTDIR, "%s: not an experiment directory", dir);
	e = an_vec_push(&an->exps);
	if (!e)
		return an_errf(an, -ENOMEM, "out of memory");
	exp = an->exps.n - 1;
	e->name = strdup(dir);
	if (!e->name)
		return an_errf(an, -ENOMEM, "out of memory");
	err = exp_open(&e->x, dir, 0, NULL, NULL);
	if (err)
		return an_errf(an, err, "%s", e->x ? exp_msg(e->x) : "out of memory");
	e->log = exp_info(e->x);
	if (an->run->progress)
		exp_progress_attach(e->x, an->run->progress);
	has_usage = exp_usage(e->x, &e->usage, &e->nusage);
	if (!has_usage && exp_usage_expected(e->log))
		an_warn(an, "%s/" EXP_USAGE ": missing: no precise totals for -statistics",
			dir);
	/* counters the experiments read before know must be in their places */
	ctr = e->log->counters;
	for (i = 0; i < e->log->nr_counters && i < an->nctr; i++)
		if (strcmp(an_counter_name(an, i), ctr[i].name))
			return an_errf(an, -EINVAL,
				       "%s: counter %zu is %s; experiments read together must list the same counters in the same order",
				       dir, i, ctr[i].name);
	for (i = an->nctr; i < e->log->nr_counters; i++) {
		/* PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES */
		double mhz = ctr[i].type == 0 && ctr[i].config == 0 ? e->log->cpu_mhz : 0;

		if (an_decode_counter(an, an->nctr) == UINT32_MAX ||
		    an_metric_add_counter(an, ctr[i].name, mhz))
			return an_errf(an, -ENOMEM, "out of memory");
	}
	/*
	 * Commands that show no record (an->need 0: -header alone) read
	 * none: what they count is log.txt's, whatever the files' size or
	 * state.  Unless the experiment has no usage.txt (the perf backend's,
	 * a flight recording): then the threads no longer recorded, which
	 * -header names, are known from their stop records alone.
	 */
	if (!an->need && has_usage) {
		if (!e->log->end_ns)
			an_warn(an, "%s: " EXP_LOG " has no end_ns: the recorder did not finish",
				dir);
		return 0;
	}
	/* the packets first: samples in paused time are left out */
	if (exp_has_samples(e->x)) {
		err = an_read_gsamples(an, e);
		if (err)
			return err;
	}
	exp_files(e->x, &files, &nfiles);
	for (ncpu = 0; ncpu < nfiles && files[ncpu].id < EXP_FILE_TRACE; ncpu++)
		;
	if (!nfiles)
		return an_errf(an, -ENOENT, "%s: no cpu.N.rec files", dir);
	if (e->log->cpus_possible && ncpu != e->log->cpus_possible)
		an_warn(an, "%s: %zu cpu.N.rec files, " EXP_LOG " says %u CPUs are possible",
			dir, ncpu, e->log->cpus_possible);
	/* the cpu files, then the tracing library's (docs/design/tracing.md) */
	for (i = 0; i < nfiles; i++) {
		err = an_read_rec(an, exp, files[i].id);
		if (err)
			return err;
	}
	err = an_trace_exp_done(an, exp);
	if (err)
		return err;
	e = &AN_VEC(an->exps, struct an_exp, exp);
	if (!e->log->end_ns)
		an_warn(an, "%s: " EXP_LOG " has no end_ns: the recorder did not finish; using what it wrote",
			dir);
	else if (e->log->records && e->log->records != e->nrecords)
		an_warn(an, "%s: " EXP_LOG " says %llu records were written, the files hold %llu",
			dir, (unsigned long long)e->log->records,
			(unsigned long long)e->nrecords);
	if (e->log->lost || e->lost_read)
		an_warn(an, "%s: %llu records were lost (ring full)", dir,
			(unsigned long long)(e->log->lost > e->lost_read ? e->log->lost :
					     e->lost_read));
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct an_task_ev *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static int map_cmp(const void *a, const void *b)
{
	const struct an_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The generation of pid at time t: how many execs it ran by then. */
uint32_t an_gen_at(struct an *an, uint32_t exp, uint32_t pid, uint64_t t)
{
	uint32_t g = 0;
	size_t i;

	for (i = 0; i < an->ld->tasks.n; i++) {
		struct an_task_ev *v = &AN_VEC(an->ld->tasks, struct an_task_ev, i);

		if (v->event == LWPROF_TASK_EXEC && v->exp == exp && v->pid == pid &&
		    v->time <= t)
			g++;
	}
	return g;
}

/* Execs: move mappings and samples after an exec to a new address space. */
static int split_execs(struct an *an)
{
	size_t i, k, nas = an->as.n;
	bool any = false;

	for (i = 0; i < an->ld->tasks.n; i++)
		any |= AN_VEC(an->ld->tasks, struct an_task_ev, i).event ==
		       LWPROF_TASK_EXEC;
	if (!any)
		return 0;
	for (i = 0; i < nas; i++) {
		struct an_as *a = &AN_VEC(an->as, struct an_as, i);
		size_t keep = 0;

		for (k = 0; k < a->maps.n; k++) {
			struct an_map m = AN_VEC(a->maps, struct an_map, k);
			uint32_t g = an_gen_at(an, a->exp, a->pid, m.time_ns), na;
			struct an_map *dst;

			if (!g) {
				AN_VEC(a->maps, struct an_map, keep++) = m;
				continue;
			}
			na = an_as_get(an, a->exp, a->pid, g);
			if (na == UINT32_MAX)
				return -ENOMEM;
			dst = an_vec_push(&AN_VEC(an->as, struct an_as, na).maps);
			if (!dst)
				return -ENOMEM;
			*dst = m;
			a = &AN_VEC(an->as, struct an_as, i);
		}
		a->maps.n = keep;
	}
	for (i = 0; i < an->s.n; i++) {
		struct an_raw r = AN_VEC(an->ld->raws, struct an_raw, an->s.stack[i]);
		struct an_as *a = &AN_VEC(an->as, struct an_as, r.as);
		uint32_t g = an_gen_at(an, a->exp, a->pid, an->s.time[i]), na, nr;

		if (!g)
			continue;
		na = an_as_get(an, a->exp, a->pid, g);
		nr = na == UINT32_MAX ? na : an_raw_rehome(an, an->s.stack[i], na);
		if (nr == UINT32_MAX)
			return -ENOMEM;
		an->s.stack[i] = nr;
	}
	return 0;
}

/* A new process starts with its parent's mappings at the fork. */
static int inherit_forks(struct an *an)
{
	size_t i, k;

	for (i = 0; i < an->ld->tasks.n; i++) {
		struct an_task_ev *v = &AN_VEC(an->ld->tasks, struct an_task_ev, i);
		uint32_t pa, ca;

		if (v->event != LWPROF_TASK_FORK || !v->ppid || v->ppid == v->pid)
			continue;
		pa = an_as_get(an, v->exp, v->ppid,
			       an_gen_at(an, v->exp, v->ppid, v->time));
		ca = an_as_get(an, v->exp, v->pid, 0);
		if (pa == UINT32_MAX || ca == UINT32_MAX)
			return -ENOMEM;
		for (k = 0; k < AN_VEC(an->as, struct an_as, pa).maps.n; k++) {
			struct an_map m = AN_VEC(AN_VEC(an->as, struct an_as, pa).maps,
						 struct an_map, k);
			struct an_map *dst;

			if (m.time_ns > v->time)
				continue;
			dst = an_vec_push(&AN_VEC(an->as, struct an_as, ca).maps);
			if (!dst)
				return -ENOMEM;
			*dst = m;	/* its time: older than the child's own */
		}
	}
	return 0;
}

/*
 * The user part of a packet split by records.c goes on its user stack
 * alone: the stack of the part after it (the one unwound), or its own,
 * less the kernel frames.
 */
static int charge_parts(struct an *an)
{
	struct an_samples *s = &an->s;
	uint32_t raw;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!(s->part[i] & AN_PART_USER))
			continue;
		raw = i + 1 < s->n && (s->part[i + 1] & AN_PART_CONT) ?
			s->stack[i + 1] : s->stack[i];
		s->stack[i] = an_raw_user(an, raw);
		if (s->stack[i] == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

/*
 * An exit packet has no stack: it goes where the thread's last one went,
 * on its user stack alone (its time is the exit's, on CPU: not the kernel
 * stack of a tick or of where the thread blocked).
 */
static int charge_exits(struct an *an)
{
	size_t i;

	for (i = 0; i < an->ld->exits.n; i++) {
		uint32_t s = AN_VEC(an->ld->exits, uint32_t, i);
		struct an_thread *t = &AN_VEC(an->threads, struct an_thread,
					      an->s.thr[s]);

		if (!t->has_last)
			continue;
		an->s.stack[s] = an_raw_user(an, an->s.stack[t->last_clock]);
		if (an->s.stack[s] == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

static int idx_cmp(const void *a, const void *b, void *ctx)
{
	const struct an_thread *t = ctx;
	const struct an_thread *x = &t[*(const uint32_t *)a];
	const struct an_thread *y = &t[*(const uint32_t *)b];

	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Number the threads by experiment, pid and tid (-thread_list order). */
static int sort_threads(struct an *an)
{
	size_t n = an->threads.n, i;
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint32_t *newid = malloc((n + 1) * sizeof(*newid));
	struct an_thread *t = an->threads.p;
	struct an_thread *sorted = malloc((n + 1) * sizeof(*sorted));

	if (!order || !newid || !sorted) {
		free(order);
		free(newid);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), idx_cmp, t);
	for (i = 0; i < n; i++) {
		sorted[i] = t[order[i]];
		newid[order[i]] = i;
	}
	if (n)		/* no thread: t is NULL, not for memcpy() */
		memcpy(t, sorted, n * sizeof(*t));
	for (i = 0; i < an->s.n; i++)
		an->s.thr[i] = newid[an->s.thr[i]];
	free(order);
	free(newid);
	free(sorted);
	an_htab_free(&an->ld->thr_h);	/* no lookups after loading */
	return 0;
}

int an_finish(struct an *an)
{
	size_t i;
	int err;

	err = an_mpi_finish(an);	/* every rank is read */
	if (err)
		return err;
	an_vec_sort(&an->ld->tasks, ev_cmp);
	err = split_execs(an);
	if (!err)
		err = inherit_forks(an);
	if (!err)
		err = an_omp_rehome(an);
	if (err)
		return an_errf(an, err, "out of memory");
	for (i = 0; i < an->as.n; i++) {
		struct an_as *a = &AN_VEC(an->as, struct an_as, i);

		an_vec_sort(&a->maps, map_cmp);
		a->sorted = true;
	}
	err = an_split_remaps(an);
	if (err)
		return an_errf(an, err, "out of memory");
	/* the samples to unwind follow their samples' moves */
	for (i = 0; i < an->ld->deferred.n; i++) {
		struct an_unw_ref *u = &AN_VEC(an->ld->deferred, struct an_unw_ref, i);

		u->as = AN_VEC(an->ld->raws, struct an_raw, an->s.stack[u->sample]).as;
	}
	err = an_unwind_all(an);
	if (err)
		return err;
	if (charge_parts(an) || charge_exits(an) || sort_threads(an))
		return an_errf(an, -ENOMEM, "out of memory");
	/* the records counted but not decoded count here as they would */
	an->tmin = an->ld->skip_tmin;
	an->tmax = an->ld->skip_tmax;
	for (i = 0; i < an->s.n; i++) {
		if (an->s.time[i] < an->tmin)
			an->tmin = an->s.time[i];
		if (an->s.time[i] > an->tmax)
			an->tmax = an->s.time[i];
	}
	for (i = 0; i < an->exps.n; i++) {
		struct an_exp *e = &AN_VEC(an->exps, struct an_exp, i);

		if (e->log->start_ns && e->log->start_ns < an->tmin)
			an->tmin = e->log->start_ns;
	}
	if (an->tmin == UINT64_MAX)
		an->tmin = 0;
	err = an_java_finish(an);
	if (!err)
		err = an_resolve(an);
	if (!err)
		err = an_omp_finish(an);
	if (!err)
		err = an_objs_trunc(an);
	if (!err)
		load_free(an);
	return err;
}

/* ---- MPI experiments: a founder of one experiment per rank ---- */

static int rank_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * collect -M's founder (docs/guide/mpi.md): its mpi.txt, and M_rN.er for
 * each rank, read in rank order.  A rank whose experiment cannot be
 * opened (killed before it was written) is named and left out: the
 * others' are the run's.
 */
static int load_founder(struct an *an, const char *dir)
{
	char path[PATH_MAX], *msg;
	struct an_vec ranks = { .esz = sizeof(int) };
	struct dirent *d;
	size_t i, nexp;
	DIR *dp;
	int r, *p, err = 0;

	dp = opendir(dir);
	if (!dp)
		return an_errf(an, -errno, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dp)))
		if (sscanf(d->d_name, "M_r%d.er", &r) == 1 && r >= 0) {
			snprintf(path, sizeof(path), "M_r%d.er", r);
			if (strcmp(path, d->d_name))
				continue;
			p = an_vec_push(&ranks);
			if (!p) {
				closedir(dp);
				free(ranks.p);
				return an_errf(an, -ENOMEM, "out of memory");
			}
			*p = r;
		}
	closedir(dp);
	if (!ranks.n)
		return an_errf(an, -ENOENT, "%s: an MPI experiment without a rank's (no M_rN.er)",
			       dir);
	an_vec_sort(&ranks, rank_cmp);
	for (i = 0; i < ranks.n && !err; i++) {
		snprintf(path, sizeof(path), "%s/M_r%d.er", dir,
			 AN_VEC(ranks, int, i));
		nexp = an->exps.n;
		err = load_one(an, path);
		if (err && an->exps.n == nexp + 1 && !AN_VEC(an->exps,
		    struct an_exp, nexp).nrecords) {
			msg = strdup(an->run->err);
			an_warn(an, "rank %d left out: %s", AN_VEC(ranks, int, i),
				msg ? msg : "cannot be read");
			free(msg);
			exp_free(&AN_VEC(an->exps, struct an_exp, nexp));
			an->exps.n--;
			err = 0;
		}
	}
	free(ranks.p);
	return err;
}

int an_load(struct an *an, const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/mpi.txt", dir);
	if (!access(path, F_OK)) {
		snprintf(path, sizeof(path), "%s/" EXP_LOG, dir);
		if (access(path, F_OK))
			return load_founder(an, dir);
	}
	return load_one(an, dir);
}
