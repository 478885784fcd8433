// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp's OpenMP records (libexp/omp.h): what the OMPT tool writes into
 * a process's trace.PID.rec, one statement a record, in the order given:
 *
 *   omp PID runtime                         the runtime that started it
 *   omp PID stack ID FRAME,...              a stack (frames as sample's)
 *   omp PID EVENT tid=T t0=NS t1=NS [region=R] [stack=ID] [obj=N]
 *           [cont=1] [ms=STATE:NS,...]
 *     EVENT: region itask idle implicit_barrier explicit_barrier lock
 *     critical ordered atomic reduction taskwait task, or a number
 *     (a newer minor's kind)
 *   omp PID fold tid=T t0=NS t1=NS bar0=NS region=R obj=N [bstack=ID]
 *           [idle0=NS] [r0=NS r1=NS rstack=ID asked=N]
 *     a folded record: implicit task t0-t1 (obj: team << 32 | number),
 *     its implicit barrier bar0-t1, the idle time before it from idle0,
 *     the region r0-r1 encountered
 */
#include "gen_exp.h"
#include "libexp/omp.h"

static const char *const events[] = {
	NULL, "region", "itask", "idle", "implicit_barrier", "explicit_barrier",
	"lock", "critical", "ordered", "atomic", "reduction", "taskwait", "task",
};

/* trace.PID.rec, opened at its first record (gen_finish closes it) */
static FILE *omp_file(struct gen *g, uint32_t pid)
{
	struct exp_file_header fh;
	char path[4200];

	if (g->omp && g->omp_pid == pid)
		return g->omp;
	if (g->omp && fclose(g->omp)) {
		g->omp = NULL;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/" EXP_TRACE_FMT, g->out, pid);
	g->omp = fopen(path, "w");
	g->omp_pid = pid;
	exp_file_header_init(&fh, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	if (g->omp && fwrite(&fh, sizeof(fh), 1, g->omp) != 1) {
		fclose(g->omp);
		g->omp = NULL;
	}
	return g->omp;
}

static int put(struct gen *g, uint32_t pid, const void *r, size_t n)
{
	FILE *f = omp_file(g, pid);

	if (!f || fwrite(r, n, 1, f) != 1)
		return -EIO;
	g->records++;
	return 0;
}

static int runtime(struct gen *g, uint32_t pid)
{
	struct { struct exp_rec_omp_runtime r; char v[16]; } x = { 0 };

	x.r.hdr.type = EXP_REC_OMP_RUNTIME;
	x.r.hdr.size = sizeof(x);
	x.r.time_ns = g->start_ns;
	x.r.pid = pid;
	x.r.omp_version = 201611;
	strcpy(x.r.version, "gen_exp OMP");
	return put(g, pid, &x, sizeof(x));
}

static int stack(struct gen *g, uint32_t pid, uint32_t id, char *list)
{
	struct { struct exp_rec_omp_stack s; uint64_t ips[64]; } x = { 0 };
	char *frames[64], *s;
	int nf = 0, i, err;

	for (s = strtok(list, ","); s && nf < 64; s = strtok(NULL, ","))
		frames[nf++] = s;
	for (i = 0; i < nf; i++) {
		err = gen_frame_addr(g, frames[i], i ? frames[i - 1] : NULL,
				     i == 0, &x.ips[i]);
		if (err)
			return err;
	}
	x.s.hdr.type = EXP_REC_OMP_STACK;
	x.s.hdr.size = sizeof(x.s) + 8 * nf;
	x.s.pid = pid;
	x.s.id = id;
	x.s.nr = nf;
	return put(g, pid, &x, x.s.hdr.size);
}

static int event(struct gen *g, uint32_t pid, const char *kind, char **w, int n)
{
	struct { struct exp_rec_omp_event e; uint64_t ms[LWPROF_MS_COUNT]; } x = { 0 };
	char *v, *s;
	size_t k;
	int i;

	for (k = 1; k < sizeof(events) / sizeof(events[0]); k++)
		if (!strcmp(kind, events[k]))
			x.e.event = k;
	if (!x.e.event)
		x.e.event = atoi(kind);
	x.e.hdr.type = EXP_REC_OMP_EVENT;
	x.e.hdr.size = sizeof(x.e);
	x.e.pid = pid;
	for (i = 0; i < n; i++) {
		v = strchr(w[i], '=');
		if (!v)
			return -EINVAL;
		*v++ = 0;
		if (!strcmp(w[i], "tid"))
			x.e.tid = atoi(v);
		else if (!strcmp(w[i], "t0"))
			x.e.start_ns = g->start_ns + strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "t1"))
			x.e.end_ns = g->start_ns + strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "region"))
			x.e.region = strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "stack"))
			x.e.stack = atoi(v);
		else if (!strcmp(w[i], "obj"))
			x.e.obj = strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "cont"))
			x.e.hdr.flags |= EXP_OMPF_CONT;
		else if (!strcmp(w[i], "ms")) {
			x.e.hdr.flags |= EXP_OMPF_MS;
			x.e.hdr.size = sizeof(x);
			for (s = strtok(v, ","); s; s = strtok(NULL, ",")) {
				char *c = strchr(s, ':');

				if (!c)
					return -EINVAL;
				*c++ = 0;
				for (k = 0; k < LWPROF_MS_COUNT; k++)
					if (!strcmp(s, exp_mstate_names[k].name))
						x.ms[k] = strtoull(c, NULL, 0);
			}
		} else
			return -EINVAL;
	}
	if (x.e.end_ns > g->tmax)
		g->tmax = x.e.end_ns;
	return put(g, pid, &x, x.e.hdr.size);
}

static int fold(struct gen *g, uint32_t pid, char **w, int n)
{
	struct {
		struct exp_rec_omp_fold f;
		uint64_t idle0;
		struct exp_omp_fold_region r;
	} x = { 0 };
	uint64_t t1 = 0, b0 = 0, r0 = 0, r1 = 0, val;
	__u64 *tail = x.f.tail;
	struct exp_omp_fold_region *r;
	char *v;
	int i;

	x.f.hdr.type = EXP_REC_OMP_FOLD;
	x.f.pid = pid;
	for (i = 0; i < n; i++) {
		v = strchr(w[i], '=');
		if (!v)
			return -EINVAL;
		*v++ = 0;
		val = strtoull(v, NULL, 0);
		if (!strcmp(w[i], "tid"))
			x.f.tid = val;
		else if (!strcmp(w[i], "t0"))
			x.f.start_ns = g->start_ns + val;
		else if (!strcmp(w[i], "t1"))
			t1 = g->start_ns + val;
		else if (!strcmp(w[i], "bar0"))
			b0 = g->start_ns + val;
		else if (!strcmp(w[i], "region"))
			x.f.region = val;
		else if (!strcmp(w[i], "obj"))
			x.f.index = (uint32_t)val, x.f.team = val >> 32;
		else if (!strcmp(w[i], "bstack"))
			x.f.bar_stack = val;
		else if (!strcmp(w[i], "idle0"))
			x.idle0 = g->start_ns + val, x.f.hdr.flags |= EXP_OMPF_FOLD_IDLE;
		else if (!strcmp(w[i], "r0"))
			r0 = g->start_ns + val, x.f.hdr.flags |= EXP_OMPF_FOLD_REGION;
		else if (!strcmp(w[i], "r1"))
			r1 = g->start_ns + val;
		else if (!strcmp(w[i], "rstack"))
			x.r.stack = val;
		else if (!strcmp(w[i], "asked"))
			x.r.asked = val;
		else
			return -EINVAL;
	}
	x.f.bar_start = b0 - x.f.start_ns;
	x.f.end = t1 - x.f.start_ns;
	if (x.f.hdr.flags & EXP_OMPF_FOLD_IDLE)
		*tail++ = x.idle0;
	if (x.f.hdr.flags & EXP_OMPF_FOLD_REGION) {
		r = (struct exp_omp_fold_region *)tail;
		*r = x.r;
		r->before = x.f.start_ns - r0;
		r->after = r1 - t1;
	}
	x.f.hdr.size = exp_omp_fold_size(x.f.hdr.flags);
	if ((r1 > t1 ? r1 : t1) > g->tmax)
		g->tmax = r1 > t1 ? r1 : t1;
	return put(g, pid, &x, x.f.hdr.size);
}

int gen_omp(struct gen *g, char **w, int n)
{
	uint32_t pid;

	if (n < 2)
		return -EINVAL;
	pid = atoi(w[0]);
	if (!strcmp(w[1], "runtime") && n == 2)
		return runtime(g, pid);
	if (!strcmp(w[1], "stack") && n == 4)
		return stack(g, pid, atoi(w[2]), w[3]);
	if (!strcmp(w[1], "fold"))
		return fold(g, pid, w + 2, n - 2);
	return event(g, pid, w[1], w + 2, n - 2);
}
