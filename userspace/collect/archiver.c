// SPDX-License-Identifier: GPL-2.0
/*
 * The archiver: a copy in archives/ of every load object the experiment's
 * MMAP records name, so that analysis works after the binaries change or
 * vanish.
 *
 * During the run it only pins: when the drain first sees a mapping, its
 * file is opened (by path, or through /proc/PID/map_files when the path
 * leads elsewhere) and the descriptor kept.  That costs one open() per
 * object, and a program or library deleted or replaced later in the run
 * is still there to copy.  The copies are made when the run ends, when
 * they can no longer take CPU time from the program being profiled (on a
 * machine whose CPUs it keeps busy, a copying thread would).  Files the
 * descriptor limit left unpinned are opened then.  Only if the drain may
 * have missed a mapping (a size the protocol forbids, a record too large
 * to copy out of the ring) or one could not be added (out of memory) are
 * the record files read again for their MMAP records.  Warnings go to
 * exp_warn() at the end.
 *
 * A whole machine maps thousands of files, each many times: the files
 * known are found by a hash of (device, inode, path), so that an MMAP
 * record costs the same however many are known.
 *
 * The command's process is collect's own child until its exec: the MMAP
 * records SAMPLE_START writes for it name collect's binary and libraries
 * (libcapstone, libstdc++, ...), which the command may never map.  So a
 * file only that process mapped, and only before its first exec (the
 * times of its MMAP records against its first EXEC record; the exec's own
 * mappings come after it), is held but not archived.  Without an EXEC
 * record (lost, or the exec failed) everything is archived.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/progress.h"
#include "libexp/reader.h"
#include "userspace/collect/collect.h"

struct archiver {
	struct exp_writer *e;
	int adir;
	struct amap *v;		/* in the order first seen (index.txt's) */
	size_t n, cap;
	size_t *slot;		/* hash of v: index + 1, 0 = empty */
	size_t nslot;		/* a power of two, at least 2 x cap */
	bool missed;		/* a map could not be added: rescan */
	__u32 child;		/* the command's process, or 0 */
	__u64 exec_ns;		/* its first EXEC record's time, 0 = none */
};

/* Who mapped m: the command before its first exec, or anyone else. */
static void mapped_by(struct archiver *a, struct amap *m, __u32 pid,
		      __u64 time_ns)
{
	if (pid != a->child)
		m->other = true;
	else if (time_ns > m->child_ns)
		m->child_ns = time_ns;
}

/* FNV-1a over a mapping's identity: device, inode and path. */
static size_t key_hash(const struct amap *k)
{
	__u64 h = 14695981039346656037ULL, x[2] = {
		(__u64)k->maj << 32 | k->min, k->ino };
	const unsigned char *p = (const unsigned char *)x;
	size_t i;

	for (i = 0; i < sizeof(x); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	for (p = (const unsigned char *)k->path; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h ^ h >> 29;
}

static bool same(const struct amap *m, const struct amap *k)
{
	return m->ino == k->ino && m->maj == k->maj && m->min == k->min &&
	       !strcmp(m->path, k->path);
}

/* The slot of key in the hash: its entry's, or the empty one it would take. */
static size_t *lookup(struct archiver *a, const struct amap *key)
{
	size_t mask = a->nslot - 1, i = key_hash(key) & mask;

	while (a->slot[i] && !same(&a->v[a->slot[i] - 1], key))
		i = (i + 1) & mask;	/* linear probing; never full */
	return &a->slot[i];
}

/* Room for one more entry in v, and the hash at most half full. */
static int grow(struct archiver *a)
{
	size_t cap = a->cap ? a->cap * 2 : 32, i, *old = a->slot;
	struct amap *m;

	if (a->n < a->cap)
		return 0;
	m = realloc(a->v, cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	a->v = m;
	a->slot = calloc(cap * 2, sizeof(*a->slot));
	if (!a->slot) {
		a->slot = old;
		return -ENOMEM;
	}
	a->nslot = cap * 2;
	a->cap = cap;
	for (i = 0; i < a->n; i++)
		*lookup(a, &a->v[i]) = i + 1;
	free(old);
	return 0;
}

static int add(struct archiver *a, const struct amap *key, bool pin,
	       __u64 time_ns)
{
	struct amap *m;
	size_t *slot;

	if (a->nslot) {
		slot = lookup(a, key);
		if (*slot) {
			mapped_by(a, &a->v[*slot - 1], key->pid, time_ns);
			return 0;
		}
	}
	if (grow(a))
		return -ENOMEM;
	m = &a->v[a->n];
	*m = *key;
	m->fd = -1;
	m->path = strdup(key->path);
	if (!m->path)
		return -ENOMEM;
	*lookup(a, m) = a->n + 1;
	a->n++;
	mapped_by(a, m, key->pid, time_ns);
	if (pin && strcmp(m->path, "[vdso]"))
		archive_pin(m);
	if (m->fd < 0 && m->err == EMFILE)
		m->err = 0;	/* out of descriptors: open it at the end */
	return 0;
}

static int add_rec(struct archiver *a, const struct lwprof_rec_mmap *r,
		   bool pin)
{
	size_t max = r->hdr.size - sizeof(*r);
	struct amap key = {
		.maj = r->dev_major, .min = r->dev_minor, .ino = r->ino,
		.path = (char *)r->path, .pid = r->pid,
		.start = r->start, .end = r->start + r->len,
	};

	if (!memchr(r->path, 0, max))
		return 0;
	if (!strcmp(r->path, "[vdso]"))
		return add(a, &(struct amap){ .path = "[vdso]", .pid = r->pid },
			   false, r->time_ns);
	if ((r->hdr.flags & LWPROF_MMAP_ANON) || r->path[0] != '/')
		return 0;	/* //anon: no file */
	return add(a, &key, pin, r->time_ns);
}

/* An MMAP record (a file to hold), or a TASK record (the command's exec). */
static int add_any(struct archiver *a, const struct lwprof_rec *rec, bool pin)
{
	const struct lwprof_rec_task *t = (const void *)rec;

	if (rec->type == LWPROF_REC_MMAP)
		return add_rec(a, (const void *)rec, pin);
	if (rec->type == LWPROF_REC_TASK && t->event == LWPROF_TASK_EXEC &&
	    t->pid == a->child && (!a->exec_ns || t->time_ns < a->exec_ns))
		a->exec_ns = t->time_ns;
	return 0;
}

void archiver_rec(struct archiver *a, const struct lwprof_rec *rec)
{
	if (add_any(a, rec, true))
		a->missed = true;	/* out of memory: the final scan retries */
}

int archiver_start(struct exp_writer *e, int child, struct archiver **ap)
{
	struct archiver *a;
	struct rlimit rl;
	int err;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->e = e;
	a->child = child > 0 ? child : 0;
	a->adir = exp_archives_dir(e);
	if (a->adir < 0) {
		err = a->adir;
		goto fail;
	}
	/* A descriptor per load object: as many as we are allowed. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	*ap = a;
	return 0;
fail:
	free(a);
	return err;
}

/* The reader's warnings (a newer minor's records): into the log. */
static void scan_warn(void *arg, const char *msg)
{
	exp_warn(arg, "archives: %s", msg);
}

/* Every MMAP record in the experiment's files, for what the drain missed. */
static void scan_files(struct archiver *a)
{
	struct exp_writer *e = a->e;
	const struct lwprof_rec *rec;
	struct exp_reader f;
	char name[32];
	unsigned int i;
	int ret;

	for (i = 0; i < e->nr_files; i++) {
		snprintf(name, sizeof(name), EXP_REC_FMT, i);
		ret = exp_reader_open(&f, e->dirfd, name, scan_warn, e);
		if (!ret)
			while ((ret = exp_reader_next(&f, &rec)) > 0)
				if (add_any(a, rec, false))
					exp_warn(e, "archives: out of memory");
		if (ret < 0)
			exp_warn(e, "archives: %s", f.msg);
		exp_reader_close(&f);
	}
}

static int write_index(struct archiver *a)
{
	struct exp_archive *v = calloc(a->n + 1, sizeof(*v));
	size_t i, n = 0;
	int err;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < a->n; i++)
		if (a->v[i].arch.file)
			v[n++] = a->v[i].arch;
	err = exp_write_index(a->e, v, n);
	free(v);
	return err;
}

static void release(struct archiver *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (a->v[i].fd >= 0)
			close(a->v[i].fd);
		free(a->v[i].path);
		free(a->v[i].arch.file);
		free(a->v[i].warn);
	}
	free(a->v);
	free(a->slot);
	close(a->adir);
	free(a);
}

int archiver_finish(struct archiver *a, bool rescan)
{
	struct exp_progress prog;
	size_t i;
	int err;

	if (!a)
		return 0;
	if (rescan || a->missed)
		scan_files(a);
	archive_kallsyms(a->e);
	/* a whole machine's thousands of objects take a while: say so */
	exp_progress_init(&prog, 2, COLLECT);
	exp_progress_phase(&prog, a->n, "archiving %zu objects", a->n);
	for (i = 0; i < a->n; i++) {
		exp_progress_add(&prog, 1);
		if (!a->v[i].other && a->v[i].child_ns < a->exec_ns)
			continue;	/* collect's own, before the exec */
		if (!strcmp(a->v[i].path, "[vdso]"))
			archive_vdso(a->adir, &a->v[i]);
		else
			archive_one(a->adir, &a->v[i]);
		if (a->v[i].warn) {
			exp_progress_end(&prog);
			exp_warn(a->e, "%s", a->v[i].warn);
		}
	}
	exp_progress_end(&prog);
	err = write_index(a);
	if (err)
		exp_warn(a->e, "%s: %s", EXP_INDEX, strerror(-err));
	release(a);
	return err;
}

void archiver_cancel(struct archiver *a)
{
	if (a)
		release(a);
}
