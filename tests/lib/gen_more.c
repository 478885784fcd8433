// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp: "capture" (a real register + stack snapshot taken by
 * tests/progs/qsort_unwind, with its /proc/self/maps) and "random" (the
 * benchmark's many samples over random stacks, streamed to the files).
 */
#include "gen_exp.h"
#include "capture.h"

static int stream(struct gen *g);

static int capture_maps(struct gen *g, uint32_t pid, char *maps)
{
	char *save, *l;

	for (l = strtok_r(maps, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, off, ino;
		char perms[8], dev[16], path[4096] = "";
		struct lwprof_rec_mmap *m;
		struct gen_bin *b;
		uint8_t buf[sizeof(*m) + 4200];
		unsigned maj, min;
		size_t size;
		const char *base;

		if (sscanf(l, "%llx-%llx %7s %llx %15s %llu %4095s", &start, &end, perms,
			   &off, dev, &ino, path) < 6 || !strchr(perms, 'x') ||
		    path[0] != '/' || sscanf(dev, "%x:%x", &maj, &min) != 2)
			continue;
		base = strrchr(path, '/') + 1;
		b = gen_bin_find(g, base);
		if (!b) {
			if (gen_bin_open(g, base, path))
				continue;
			b = &g->bins[g->nbins - 1];
			if (g->archive && gen_archive(g, b))
				return -EIO;
		}
		b->mapped = true;
		size = (sizeof(*m) + strlen(b->path) + 1 + 7) & ~7UL;
		memset(buf, 0, size);
		m = (void *)buf;
		m->hdr.type = LWPROF_REC_MMAP;
		m->hdr.size = size;
		m->time_ns = g->start_ns;
		m->pid = pid;
		m->tid = pid;
		m->start = start;
		m->len = end - start;
		m->pgoff = off;
		m->ino = ino;
		m->dev_major = maj;
		m->dev_minor = min;
		m->prot = 5;
		strcpy(m->path, b->path);
		if (gen_rec(g, 0, buf, size))
			return -EIO;
	}
	return 0;
}

/*
 * Load a capture: one or more snapshots (each a header and its stack
 * bytes), then the maps text, which becomes MMAP records.  *cp and *sp
 * (each of *nsp entries) are malloc'd.
 */
static int capture_load(struct gen *g, const char *file,
			struct lwprof_capture **cp, uint8_t ***sp, size_t *nsp)
{
	FILE *f = fopen(file, "r");
	struct lwprof_capture *c = NULL;
	uint8_t **stack = NULL;
	size_t ns = 0, i;
	char *maps = NULL;
	size_t mlen = 0;
	int err = -EINVAL;

	if (!f)
		return -errno;
	for (;;) {
		long at = ftell(f);
		void *p;

		p = realloc(c, (ns + 1) * sizeof(*c));
		if (!p)
			goto out;
		c = p;
		p = realloc(stack, (ns + 1) * sizeof(*stack));
		if (!p)
			goto out;
		stack = p;
		stack[ns] = NULL;
		if (fread(&c[ns], sizeof(*c), 1, f) != 1 ||
		    memcmp(c[ns].magic, CAPTURE_MAGIC, 8)) {
			fseek(f, at, SEEK_SET);
			break;
		}
		if (c[ns].stack_size > (1u << 20))
			goto out;
		stack[ns] = malloc(c[ns].stack_size + 1);
		if (!stack[ns++] ||
		    fread(stack[ns - 1], 1, c[ns - 1].stack_size, f) != c[ns - 1].stack_size)
			goto out;
	}
	maps = calloc(1, 1 << 20);
	if (!ns || !maps)
		goto out;
	mlen = fread(maps, 1, (1 << 20) - 1, f);
	maps[mlen] = 0;
	err = capture_maps(g, c[0].pid, maps);
	if (!err && !gen_thread(g, c[0].pid, c[0].tid))
		err = -ENOMEM;
out:
	if (err) {
		for (i = 0; stack && i < ns; i++)
			free(stack[i]);
		free(stack);
		free(c);
	} else {
		*cp = c;
		*sp = stack;
		*nsp = ns;
	}
	free(maps);
	fclose(f);
	return err;
}

static void capture_free(struct lwprof_capture *c, uint8_t **stack, size_t ns)
{
	size_t i;

	for (i = 0; i < ns; i++)
		free(stack[i]);
	free(stack);
	free(c);
}

/* The first snapshot of a capture: *c its header, *stack its bytes. */
int gen_capture_read(struct gen *g, const char *file, struct lwprof_capture *c,
		     uint8_t **stack)
{
	struct lwprof_capture *cs;
	uint8_t **ss;
	size_t ns;
	int err;

	*stack = NULL;
	err = capture_load(g, file, &cs, &ss, &ns);
	if (err)
		return err;
	*c = cs[0];
	*stack = ss[0];
	ss[0] = NULL;
	capture_free(cs, ss, ns);
	return 0;
}

/*
 * A sample per snapshot; with n > 0, n samples cycle through the snapshots
 * (the unwinding benchmark), streamed to the files.
 */
int gen_capture(struct gen *g, const char *file, uint64_t n)
{
	uint64_t ms[LWPROF_MS_COUNT] = { 10000000 };
	struct lwprof_capture *c;
	uint8_t **stack;
	size_t ns, i;
	int err;

	err = capture_load(g, file, &c, &stack, &ns);
	if (err)
		return err;
	if (n)
		err = stream(g);
	for (i = 0; !err && i < (n ? n : ns); i++) {
		struct lwprof_capture *s = &c[i % ns];

		err = gen_sample(g, 0, s->pid, s->tid, g->start_ns + 1000000 * (i + 1),
				 ms, -1, 0, 0, &s->regs[LWPROF_REG_IP], 1, s->regs,
				 stack[i % ns], s->stack_size);
	}
	capture_free(c, stack, ns);
	return err;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int stream(struct gen *g)
{
	struct exp_file_header fh;
	char path[4200];

	exp_file_header_init(&fh, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	for (int i = 0; i < g->ncpu; i++) {
		if (g->cpuf[i])
			continue;
		snprintf(path, sizeof(path), "%s/cpu.%d.rec", g->out, i);
		g->cpuf[i] = fopen(path, "w");
		if (!g->cpuf[i])
			return -errno;
		setvbuf(g->cpuf[i], NULL, _IOFBF, 1 << 20);
		fh.cpu = i;
		fh.minor = g->minor;
		if (fwrite(&fh, sizeof(fh), 1, g->cpuf[i]) != 1 ||
		    (g->cpu[i].n && fwrite(g->cpu[i].p, g->cpu[i].n, 1, g->cpuf[i]) != 1))
			return -EIO;
	}
	return 0;
}

int gen_random(struct gen *g, char **kv, int nkv)
{
	uint64_t n = 1000, paths = 100, depth = 12, seed = 1, pid = 1000, threads = 1;
	struct gen_sym **pool = NULL;
	uint64_t *base = NULL, **pips = NULL, *pn = NULL, *tt;
	size_t *callee;
	size_t npool = 0, i, k;
	int err = 0;

	for (i = 0; i < (size_t)nkv; i++) {
		char *v = strchr(kv[i], '=');
		uint64_t x;

		if (!v)
			return -EINVAL;
		*v++ = 0;
		x = strtoull(v, NULL, 0);
		if (!strcmp(kv[i], "n"))
			n = x;
		else if (!strcmp(kv[i], "paths"))
			paths = x;
		else if (!strcmp(kv[i], "depth"))
			depth = x;
		else if (!strcmp(kv[i], "seed"))
			seed = x;
		else if (!strcmp(kv[i], "pid"))
			pid = x;
		else if (!strcmp(kv[i], "threads"))
			threads = x;
		else
			return -EINVAL;
	}
	for (int b = 0; b < g->nbins; b++)
		if (g->bins[b].mapped)
			npool += g->bins[b].nsyms;
	pool = calloc(npool + 1, sizeof(*pool));
	base = calloc(npool + 1, sizeof(*base));
	pips = calloc(paths, sizeof(*pips));
	pn = calloc(paths, sizeof(*pn));
	tt = calloc(threads, sizeof(*tt));
	if (!pool || !base || !pips || !pn || !tt || !npool || depth < 2)
		return -EINVAL;
	npool = 0;
	for (int b = 0; b < g->nbins; b++)
		for (k = 0; g->bins[b].mapped && k < g->bins[b].nsyms; k++) {
			base[npool] = g->bins[b].base;
			pool[npool++] = &g->bins[b].syms[k];
		}
	/*
	 * A call graph like a program's: each function calls one of 4 fixed
	 * callees (each from its own call site); a stack is a walk from one
	 * of 64 entry functions, its leaf at one of 8 pcs.
	 */
	seed = seed * 2654435761ULL + 1;
	callee = malloc(npool * 4 * sizeof(*callee));
	if (!callee)
		return -ENOMEM;
	for (i = 0; i < npool * 4; i++)
		callee[i] = rnd(&seed) % npool;
	for (i = 0; i < paths; i++) {
		size_t f = rnd(&seed) % (npool < 64 ? npool : 64), slot = 0;

		pn[i] = depth / 2 + rnd(&seed) % depth;
		pips[i] = malloc(pn[i] * 8);
		if (!pips[i])
			return -ENOMEM;
		for (k = pn[i]; k-- > 0;) {
			uint64_t sz = pool[f]->size > 8 ? pool[f]->size : 8;

			if (k) {	/* a caller: the return address of call site slot */
				slot = rnd(&seed) % 4;
				pips[i][k] = base[f] + pool[f]->addr + 1 + slot * (sz - 1) / 4;
				f = callee[f * 4 + slot];
			} else {
				pips[i][k] = base[f] + pool[f]->addr + (rnd(&seed) % 8) * (sz - 1) / 8;
			}
		}
	}
	free(callee);
	err = stream(g);
	for (i = 0; !err && i < n; i++) {
		uint64_t ms[LWPROF_MS_COUNT] = { 0 }, r = rnd(&seed);
		double u = (r % 1000003) / 1000003.0;
		size_t p = (size_t)(u * u * u * paths) % paths;
		uint32_t th = r % threads;

		ms[LWPROF_MS_USER] = 9000000 + r % 1000000;
		if (r % 10 == 0)
			ms[LWPROF_MS_SYSTEM] = 1000000 + (r >> 8) % 500000;
		if (r % 20 == 1)
			ms[LWPROF_MS_SLEEP] = 50000000;
		tt[th] += 10000000;
		err = gen_sample(g, th % g->ncpu, pid, pid + th, g->start_ns + tt[th], ms,
				 -1, 0, 0, pips[p], pn[p], NULL, NULL, 0);
	}
	for (i = 0; i < paths; i++)
		free(pips[i]);
	free(pips);
	free(pn);
	free(pool);
	free(base);
	free(tt);
	return err;
}
