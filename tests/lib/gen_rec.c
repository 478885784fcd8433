// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp's record side: the script's statements, the records in the
 * per-CPU files (after the 64-byte file header), log.txt and usage.txt.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gen_exp.h"
#include "libexp/writer.h"

#define START_NS 1000000000000ULL

void gen_init(struct gen *g)
{
	memset(g, 0, sizeof(*g));
	g->ncpu = 2;
	g->archive = true;
	g->start_ns = START_NS;
	g->minor = EXP_FILE_MINOR;
}

/* A newer minor's fields after a record's known part (grow bytes=B). */
void gen_extra(const struct gen *g, uint8_t *p)
{
	memset(p, 0xa5, g->extra_bytes);
}

int gen_rec(struct gen *g, int cpu, const void *rec, size_t len)
{
	struct gen_buf *b = &g->cpu[cpu];

	g->records++;
	if (g->cpuf[cpu])
		return fwrite(rec, 1, len, g->cpuf[cpu]) == len ? 0 : -EIO;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 65536;
		uint8_t *p;

		while (cap < b->n + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, rec, len);
	b->n += len;
	return 0;
}

struct gen_thr *gen_thread(struct gen *g, uint32_t pid, uint32_t tid)
{
	struct gen_thr *t;

	for (int i = 0; i < g->nthr; i++)
		if (g->thr[i].pid == pid && g->thr[i].tid == tid)
			return &g->thr[i];
	if (g->nthr == GEN_MAX_THR)
		return NULL;
	t = &g->thr[g->nthr++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->scale = 1.0;
	snprintf(t->comm, sizeof(t->comm), "t%u", tid);
	if (!g->target)
		g->target = pid;
	return t;
}

int gen_map(struct gen *g, int cpu, uint32_t pid, struct gen_bin *b,
	    uint64_t base, uint64_t t)
{
	const char *path = b->vdso ? "[vdso]" : b->path;
	struct stat st;
	size_t plen = strlen(path) + 1, size;
	uint8_t buf[sizeof(struct lwprof_rec_mmap) + 4200 + 64];
	struct lwprof_rec_mmap *m = (void *)buf;

	if (stat(b->path, &st))
		return -errno;
	if (b->vdso)
		memset(&st, 0, sizeof(st));	/* no file: no device, no inode */
	b->base = b->dyn ? base : 0;
	b->mapped = true;
	size = (sizeof(*m) + plen + 7) & ~7UL;
	for (int i = 0; i < b->nsegs; i++) {
		uint64_t v = b->segs[i][0], o = b->segs[i][1];
		uint64_t start = (v & ~0xfffULL), end = (v + b->segs[i][3] + 0xfff) & ~0xfffULL;

		memset(buf, 0, size);
		m->hdr.type = LWPROF_REC_MMAP;
		m->hdr.size = size + g->extra_bytes;
		m->hdr.flags = g->extra_flags;
		m->time_ns = g->start_ns + t;
		m->pid = pid;
		m->tid = pid;
		m->start = b->base + start;
		m->len = end - start;
		m->pgoff = o & ~0xfffULL;
		m->ino = st.st_ino;
		m->dev_major = major(st.st_dev);
		m->dev_minor = minor(st.st_dev);
		m->prot = 5;	/* PROT_READ | PROT_EXEC */
		if (b->vdso)
			m->hdr.flags |= LWPROF_MMAP_ANON;
		memcpy(m->path, path, plen);
		gen_extra(g, buf + size);
		if (gen_rec(g, cpu, buf, size + g->extra_bytes))
			return -EIO;
	}
	return g->archive && !b->archived++ ? gen_archive(g, b) : 0;
}

int gen_sample(struct gen *g, int cpu, uint32_t pid, uint32_t tid, uint64_t t,
	       const uint64_t *ms, int counter, uint64_t cvalue, uint16_t flags,
	       const uint64_t *ips, int nips, const uint64_t *regs,
	       const uint8_t *stack, uint32_t stack_size)
{
	struct lwprof_rec_sample h = {
		.hdr.flags = flags | (regs ? LWPROF_RS_REGS : 0),
		.nr_user = nips, .nr_kernel = g->nkips, .stack_size = stack_size,
	};
	size_t size = exp_sample_known(&h, LWPROF_NR_REGS);
	uint8_t *buf = calloc(1, size + g->extra_bytes);
	struct lwprof_rec_sample *s = (void *)buf;
	struct gen_thr *th = gen_thread(g, pid, tid);
	int err;

	if (!buf || !th) {
		free(buf);
		return -ENOMEM;
	}
	*s = h;
	s->hdr.type = LWPROF_REC_SAMPLE;
	s->hdr.flags |= g->extra_flags & 0xff00;	/* a newer minor's bits */
	s->hdr.size = size + g->extra_bytes;
	s->time_ns = t;
	s->pid = pid;
	s->tid = tid;
	s->cpu = cpu;
	if (counter >= 0) {
		s->kind = LWPROF_SK_COUNTER;
		s->counter = counter;
		s->value = cvalue;
	} else {
		s->kind = LWPROF_SK_CLOCK;
		for (int i = 0; i < LWPROF_MS_COUNT; i++) {
			s->mstate_ns[i] = ms[i];
			s->value += ms[i];
			th->ms[i] += ms[i];
		}
	}
	if (regs)
		memcpy((void *)exp_sample_regs(s), regs, LWPROF_NR_REGS * 8);
	memcpy((void *)exp_sample_ips(s, LWPROF_NR_REGS), ips, 8 * nips);
	if (g->nkips)
		memcpy((void *)exp_sample_kips(s, LWPROF_NR_REGS), g->kips,
		       8 * g->nkips);
	if (stack_size)
		memcpy((void *)exp_sample_stack(s, LWPROF_NR_REGS), stack,
		       stack_size);
	gen_extra(g, buf + size);
	if (!th->first || t < th->first)
		th->first = t;
	if (t > th->last)
		th->last = t;
	if (t > g->tmax)
		g->tmax = t;
	if (flags & LWPROF_RS_EXIT)
		th->exited = true;
	if (g->compact)		/* as the perf backend writes it */
		size = exp_sample_compact(buf, s, LWPROF_NR_REGS,
					  EXP_X86_64_UNWIND_REGS) -
		       g->extra_bytes;
	err = gen_rec(g, cpu, buf, size + g->extra_bytes);
	free(buf);
	return err;
}

/* A record's optional "t=NS" (default 0) and "cpu=N" (default 0) words. */
static int at_words(struct gen *g, char **w, int n, uint64_t *t, int *cpu)
{
	*t = 0;
	*cpu = 0;
	for (int i = 0; i < n; i++) {
		if (!strncmp(w[i], "t=", 2))
			*t = strtoull(w[i] + 2, NULL, 0);
		else if (!strncmp(w[i], "cpu=", 4))
			*cpu = atoi(w[i] + 4);
		else
			return -EINVAL;
	}
	return *cpu >= 0 && *cpu < g->ncpu ? 0 : -EINVAL;
}

static int task(struct gen *g, char **w, int n)
{
	static const char *const ev[] = { "", "start", "fork", "exec", "exit", "comm" };
	struct {
		struct lwprof_rec_task r;
		uint8_t extra[64];
	} x;
	struct lwprof_rec_task r = { 0 };
	struct gen_thr *th;
	uint64_t t;
	int e, cpu;

	if (n < 6)
		return -EINVAL;
	for (e = 1; e <= 5; e++)
		if (!strcmp(w[1], ev[e]))
			break;
	if (e > 5)
		return -EINVAL;
	r.hdr.type = LWPROF_REC_TASK;
	r.hdr.size = sizeof(r);
	if (at_words(g, w + 6, n - 6, &t, &cpu))
		return -EINVAL;
	r.time_ns = g->start_ns + t;
	r.pid = atoi(w[2]);
	r.tid = atoi(w[3]);
	r.ppid = atoi(w[4]);
	r.event = e;
	strncpy(r.comm, w[5], sizeof(r.comm) - 1);
	th = gen_thread(g, r.pid, r.tid);
	if (!th)
		return -ENOMEM;
	th->ppid = r.ppid;
	if (e != LWPROF_TASK_EXIT)
		snprintf(th->comm, sizeof(th->comm), "%s", w[5]);
	memset(&x, 0, sizeof(x));
	x.r = r;
	x.r.hdr.size += g->extra_bytes;
	x.r.hdr.flags = g->extra_flags;
	gen_extra(g, x.extra);
	return gen_rec(g, cpu, &x, sizeof(r) + g->extra_bytes);
}

/* "grow minor=M [bytes=B] [flags=F]": a newer minor's records from here */
static int grow(struct gen *g, char **w, int n)
{
	for (int i = 1; i < n; i++) {
		if (!strncmp(w[i], "minor=", 6))
			g->minor = strtoul(w[i] + 6, NULL, 0);
		else if (!strncmp(w[i], "bytes=", 6))
			g->extra_bytes = strtoul(w[i] + 6, NULL, 0);
		else if (!strncmp(w[i], "flags=", 6))
			g->extra_flags = strtoul(w[i] + 6, NULL, 0);
		else
			return -EINVAL;
	}
	return g->extra_bytes % 8 || g->extra_bytes > 64 ? -EINVAL : 0;
}

/* A line appended to archives/NAME (made if new). */
static int archive_line(struct gen *g, const char *name, const char *line)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/archives", g->out);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/archives/%s", g->out, name);
	f = fopen(path, "a");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", line);
	return fclose(f) ? -errno : 0;
}

/*
 * "kallsyms ADDR TYPE NAME [MODULE]": a line of archives/kallsyms;
 * "kmodule NAME SIZE ADDR": a line of archives/modules (/proc/modules')
 */
static int kernel_line(struct gen *g, char **w, int n)
{
	char line[1024];

	if (!strcmp(w[0], "kmodule")) {
		snprintf(line, sizeof(line), "%s %s 0 - Live %s", w[1], w[2], w[3]);
		return archive_line(g, "modules", line);
	}
	snprintf(line, sizeof(line), "%s %s %s%s%s", w[1], w[2], w[3],
		 n > 4 ? "\t" : "", n > 4 ? w[4] : "");
	return archive_line(g, "kallsyms", line);
}

/* A sample flag's name in a script (0: none such). */
static uint16_t sample_flag(const char *s)
{
	static const struct {
		const char *name;
		uint16_t flag;
	} fl[] = {
		{ "trunc", LWPROF_RS_TRUNC }, { "exit", LWPROF_RS_EXIT },
		{ "deferred", LWPROF_RS_DEFERRED }, { "kmode", LWPROF_RS_KMODE },
		{ "kblock", LWPROF_RS_KBLOCK }, { "signal", LWPROF_RS_SIGNAL },
		{ "idle", LWPROF_RS_IDLE }, { "hardirq", LWPROF_RS_HARDIRQ },
		{ "softirq", LWPROF_RS_SOFTIRQ },
	};
	size_t i;

	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (!strcmp(s, fl[i].name))
			return fl[i].flag;
	return 0;
}

static int sample(struct gen *g, char **w, int n)
{
	uint64_t ms[LWPROF_MS_COUNT] = { 0 }, t = 0, dt = 10000000, cval = 0;
	uint64_t ips[512], kips[512];
	char *frames[512];
	int nk = 0;
	int cpu = 0, reps = 1, counter = -1, nf = 0, i, err;
	uint32_t pid = 0, tid = 0;
	uint16_t flags = 0;

	for (i = 1; i < n; i++) {
		char *v = strchr(w[i], '=');

		if (!v)
			return -EINVAL;
		*v++ = 0;
		if (!strcmp(w[i], "cpu"))
			cpu = atoi(v);
		else if (!strcmp(w[i], "pid"))
			pid = atoi(v);
		else if (!strcmp(w[i], "tid"))
			tid = atoi(v);
		else if (!strcmp(w[i], "t"))
			t = strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "n"))
			reps = atoi(v);
		else if (!strcmp(w[i], "dt"))
			dt = strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "counter"))
			counter = atoi(v);
		else if (!strcmp(w[i], "value"))
			cval = strtoull(v, NULL, 0);
		else if (!strcmp(w[i], "ms")) {
			for (char *s = strtok(v, ","); s; s = strtok(NULL, ",")) {
				char *c = strchr(s, ':');
				int k;

				if (!c)
					return -EINVAL;
				*c = 0;
				for (k = 0; k < LWPROF_MS_COUNT; k++)
					if (!strcmp(s, exp_mstate_names[k].name))
						break;
				if (k == LWPROF_MS_COUNT)
					return -EINVAL;
				ms[k] = strtoull(c + 1, NULL, 0);
			}
		} else if (!strcmp(w[i], "flags")) {
			for (char *s = strtok(v, ","); s; s = strtok(NULL, ","))
				flags |= sample_flag(s);
		} else if (!strcmp(w[i], "kstack")) {
			for (char *s = strtok(v, ","); s && nk < 512; s = strtok(NULL, ","))
				kips[nk++] = strtoull(s, NULL, 16);
		} else if (!strcmp(w[i], "stack")) {
			for (char *s = strtok(v, ","); s && nf < 512; s = strtok(NULL, ","))
				frames[nf++] = s;
		} else {
			return -EINVAL;
		}
	}
	/* pid and tid 0: only a CPU's idle packets */
	if ((!pid || !tid) && (pid || tid || !(flags & LWPROF_RS_IDLE)))
		return -EINVAL;
	if (cpu >= g->ncpu)
		return -EINVAL;
	for (i = 0; i < nf; i++) {
		err = gen_frame_addr(g, frames[i], i ? frames[i - 1] : NULL, i == 0,
				     &ips[i]);
		if (err)
			return err;
	}
	g->kips = kips;
	g->nkips = nk;
	for (i = 0, err = 0; !err && i < reps; i++)
		err = gen_sample(g, cpu, pid, tid, g->start_ns + t + i * dt, ms, counter,
				 cval, flags, ips, nf, NULL, NULL, 0);
	g->nkips = 0;
	return err;
}

static int usage(struct gen *g, char **w, int n)
{
	struct gen_thr *t;

	if (n == 2 && !strcmp(w[1], "auto")) {
		g->usage_auto = true;
		return 0;
	}
	if (n != 4)
		return -EINVAL;
	t = gen_thread(g, atoi(w[1]), atoi(w[2]));
	if (!t)
		return -ENOMEM;
	t->scale = atof(w[3]);
	g->usage_auto = true;
	return 0;
}

/* "map PID NAME BASE [t=NS] [cpu=N]" */
static int map(struct gen *g, char **w, int n)
{
	struct gen_bin *b = gen_bin_find(g, w[2]);
	uint64_t t;
	int cpu;

	if (at_words(g, w + 4, n - 4, &t, &cpu))
		return -EINVAL;
	return b ? gen_map(g, cpu, atoi(w[1]), b, strtoull(w[3], NULL, 16), t) :
		   -ENOENT;
}

/* "point KIND [t=NS]": a packet of samples.rec (written by gen_finish) */
static int point(struct gen *g, char **w, int n)
{
	static const char *const kinds[] = {
		[EXP_GS_START] = "start", [EXP_GS_PAUSE] = "pause",
		[EXP_GS_RESUME] = "resume", [EXP_GS_END] = "end",
	};
	uint8_t buf[sizeof(struct exp_rec_gsample) + EXP_GS_NAME_MAX];
	struct exp_rec_gsample r = { 0 };
	struct gen_buf *b = &g->points;
	size_t size;
	uint64_t t;
	int cpu, k;

	for (k = 1; k <= EXP_GS_KIND_MAX; k++)
		if (kinds[k] && !strcmp(w[1], kinds[k]))
			break;
	if (k > EXP_GS_KIND_MAX || at_words(g, w + 2, n - 2, &t, &cpu))
		return -EINVAL;
	r.time_ns = g->start_ns + t;
	r.kind = k;
	if (k == EXP_GS_PAUSE)
		g->paused_at = r.time_ns;
	else if (k == EXP_GS_RESUME && g->paused_at)
		g->paused_ns += r.time_ns - g->paused_at;
	r.paused_ns = g->paused_ns;
	size = exp_gsample_encode(buf, sizeof(buf), &r, NULL);
	if (b->n + size > b->cap) {
		uint8_t *p = realloc(b->p, b->cap + 65536);

		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap += 65536;
	}
	memcpy(b->p + b->n, buf, size);
	b->n += size;
	return 0;
}

static int statement(struct gen *g, char **w, int n)
{
	if (!strcmp(w[0], "out") && n == 2) {
		snprintf(g->out, sizeof(g->out), "%s", w[1]);
		if (mkdir(g->out, 0755))
			return -errno;
		return 0;
	}
	if (!g->out[0])
		return -EINVAL;
	if (!strcmp(w[0], "grow"))
		return grow(g, w, n);
	if ((!strcmp(w[0], "kallsyms") || !strcmp(w[0], "kmodule")) && n >= 4)
		return kernel_line(g, w, n);
	if (!strcmp(w[0], "cpus") && n == 2) {
		g->ncpu = atoi(w[1]);
		return g->ncpu > 0 && g->ncpu <= GEN_MAX_CPU ? 0 : -EINVAL;
	}
	if (!strcmp(w[0], "log") && n >= 3 && g->nlogextra < 64) {
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s = %s", w[1], w[2]);
		if (!strcmp(w[1], "cpu_mhz"))
			g->cpu_mhz = atof(w[2]);
		if (!strcmp(w[1], "counter"))
			g->ncounters++;
		g->logextra[g->nlogextra++] = strdup(buf);
		return 0;
	}
	if (!strcmp(w[0], "binary") && (n == 3 || (n == 4 && !strcmp(w[3], "vdso")))) {
		int err = gen_bin_open(g, w[1], w[2]);

		if (!err && n == 4)
			g->bins[g->nbins - 1].vdso = true;
		return err;
	}
	if (!strcmp(w[0], "map") && n >= 4)
		return map(g, w, n);
	if (!strcmp(w[0], "archive") && n == 2) {
		g->archive = !strcmp(w[1], "on");
		return 0;
	}
	if (!strcmp(w[0], "compact") && n == 2) {
		g->compact = !strcmp(w[1], "on");
		return 0;
	}
	if (!strcmp(w[0], "task"))
		return task(g, w, n);
	if (!strcmp(w[0], "point") && n >= 2)
		return point(g, w, n);
	if (!strcmp(w[0], "sample"))
		return sample(g, w, n);
	if (!strcmp(w[0], "usage"))
		return usage(g, w, n);
	if (!strcmp(w[0], "capture") && n == 2)
		return gen_capture(g, w[1], 0);
	if (!strcmp(w[0], "capture") && n == 3 && !strncmp(w[2], "n=", 2))
		return gen_capture(g, w[1], strtoull(w[2] + 2, NULL, 0));
	if (!strcmp(w[0], "capture") && n > 2)
		return gen_capture_delta(g, w + 1, n - 1);
	if (!strcmp(w[0], "random"))
		return gen_random(g, w + 1, n - 1);
	if (!strcmp(w[0], "trace") && n > 1)
		return gen_trace(g, w + 1, n - 1);
	if (!strcmp(w[0], "omp") && n > 2)
		return gen_omp(g, w + 1, n - 1);
	if (!strcmp(w[0], "java") && n > 2)
		return gen_java(g, w + 1, n - 1);
	return -EINVAL;
}

int gen_script(struct gen *g, FILE *in)
{
	char line[8192], *w[64], *save;
	int n, err;

	while (fgets(line, sizeof(line), in)) {
		g->line++;
		n = 0;
		for (char *s = strtok_r(line, " \t\n", &save); s && n < 64;
		     s = strtok_r(NULL, " \t\n", &save))
			w[n++] = s;
		if (!n || w[0][0] == '#')
			continue;
		err = statement(g, w, n);
		if (err) {
			fprintf(stderr, "gen_exp: line %lu: %s: %s\n", g->line, w[0],
				strerror(-err));
			return err;
		}
	}
	return 0;
}

static void iso(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "2026-01-01T00:00:%02u.%06uZ", (unsigned)(ns / 1000000000ULL % 60),
		 (unsigned)(ns / 1000 % 1000000));
}

int gen_finish(struct gen *g)
{
	struct exp_file_header fh;
	uint64_t end = (g->tmax > g->start_ns ? g->tmax : g->start_ns) + 1000000;
	char path[4200], t0[64], t1[64];
	FILE *f;
	int i;

	if (g->omp && fclose(g->omp))
		return -EIO;
	g->omp = NULL;
	if (g->java && fclose(g->java))
		return -EIO;
	g->java = NULL;
	exp_file_header_init(&fh, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	for (i = 0; i < g->ncpu; i++) {
		if (g->cpuf[i]) {
			fclose(g->cpuf[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/cpu.%d.rec", g->out, i);
		f = fopen(path, "w");
		fh.cpu = i;
		fh.minor = g->minor;
		if (!f || fwrite(&fh, sizeof(fh), 1, f) != 1 ||
		    (g->cpu[i].n && fwrite(g->cpu[i].p, g->cpu[i].n, 1, f) != 1) ||
		    fclose(f))
			return -EIO;
	}
	if (g->points.n) {
		snprintf(path, sizeof(path), "%s/" EXP_SAMPLES, g->out);
		f = fopen(path, "w");
		fh.cpu = EXP_CPU_NONE;
		fh.minor = g->minor;
		if (!f || fwrite(&fh, sizeof(fh), 1, f) != 1 ||
		    fwrite(g->points.p, g->points.n, 1, f) != 1 || fclose(f))
			return -EIO;
	}
	iso(t0, sizeof(t0), 0);
	iso(t1, sizeof(t1), end - g->start_ns);
	snprintf(path, sizeof(path), "%s/log.txt", g->out);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "lwprof experiment %d.%u\n# written by tests/lib/gen_exp\n",
		EXP_FILE_MAJOR, g->minor);
	fprintf(f, "command = synthetic\nmode = command\ntarget = %u\n", g->target);
	fprintf(f, "host = gen\nkernel = 6.1.0-gen\narch = x86_64\n");
	fprintf(f, "cpus = %d\ncpus_possible = %d\n", g->ncpu, g->ncpu);
	fprintf(f, "cpu_mhz = %g\nclock = CLOCK_MONOTONIC\n", g->cpu_mhz);
	fprintf(f, "start_ns = %llu\nstart_time = %s\nend_ns = %llu\nend_time = %s\n",
		(unsigned long long)g->start_ns, t0, (unsigned long long)end, t1);
	fprintf(f, "clock_interval_ns = 10000000\n");
	for (i = 0; i < g->nlogextra; i++)
		if (!strncmp(g->logextra[i], "counter", 7))
			fprintf(f, "%s\n", g->logextra[i]);
	fprintf(f, "max_depth = 256\nstack_bytes = 65536\nkernel_stacks = 0\n");
	fprintf(f, "abi = %d.%d\nmodule_version = gen\n", LWPROF_ABI_MAJOR,
		LWPROF_ABI_MINOR);
	fprintf(f, "records = %llu\nlost = 0\nexit = status 0\n",
		(unsigned long long)g->records);
	for (i = 0; i < g->nlogextra; i++)
		if (strncmp(g->logextra[i], "counter", 7) &&
		    strncmp(g->logextra[i], "cpu_mhz", 7))
			fprintf(f, "%s\n", g->logextra[i]);
	if (fclose(f))
		return -EIO;
	if (!g->usage_auto)
		return 0;
	snprintf(path, sizeof(path), "%s/usage.txt", g->out);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# pid tid ppid flags start_ns end_ns user system trap tflt dflt kflt lock sleep stop wait vcsw ivcsw minflt majflt syscalls signals comm\n");
	for (i = 0; i < g->nthr; i++) {
		struct gen_thr *t = &g->thr[i];

		if (!t->pid)
			continue;	/* idle CPUs: no thread of the module's */
		fprintf(f, "%u %u %u %x %llu %llu", t->pid, t->tid, t->ppid,
			t->exited ? 1 : 0, (unsigned long long)g->start_ns,
			(unsigned long long)(t->exited ? t->last : end));
		for (int k = 0; k < LWPROF_MS_COUNT; k++)
			fprintf(f, " %llu", (unsigned long long)(t->ms[k] * t->scale + 0.5));
		fprintf(f, " 1 2 3 0 %u 0 %s\n", 10 + i, t->comm);
	}
	return fclose(f) ? -EIO : 0;
}
