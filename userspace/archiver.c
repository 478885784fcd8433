// SPDX-License-Identifier: GPL-2.0
/*
 * The archiver: copies each load object into archives/ while the run goes
 * on, as soon as the drain sees its MMAP record, so that a program or
 * library deleted or replaced during the run is still there to analyse.
 *
 * One worker thread does the copying (files can be large; the drain must
 * not wait for them).  The drain's thread adds maps under the mutex; the
 * worker takes them in order, copies without the lock, and after each
 * batch rewrites archives/index.txt (a temporary file renamed over it), so
 * a recorder killed mid-run still leaves an index of what it copied.  At
 * the end, archiver_finish() scans the record files for any map the drain
 * did not see (a record cut at the ring's end, say), waits for the worker
 * and writes the final index.  Warnings are kept with each map and given
 * to exp_warn() from the caller's thread at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "recfile.h"

struct archiver {
	struct experiment *e;
	int adir;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t worker;
	bool threaded;
	bool stop;
	bool dirty;		/* index.txt is behind */
	struct amap *v;
	size_t n, cap;
	size_t next;		/* the first map not taken by the worker */
};

/* Called with a->mu held. */
static int add(struct archiver *a, const struct amap *key)
{
	struct amap *m;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->v[i].ino == key->ino && a->v[i].maj == key->maj &&
		    a->v[i].min == key->min && !strcmp(a->v[i].path, key->path))
			return 0;
	if (a->n == a->cap) {
		m = realloc(a->v, (a->cap ? a->cap * 2 : 32) * sizeof(*m));
		if (!m)
			return -ENOMEM;
		a->v = m;
		a->cap = a->cap ? a->cap * 2 : 32;
	}
	m = &a->v[a->n];
	*m = *key;
	m->path = strdup(key->path);
	if (!m->path)
		return -ENOMEM;
	a->n++;
	pthread_cond_signal(&a->cv);
	return 0;
}

static int add_rec(struct archiver *a, const struct lwprof_rec_mmap *r)
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
		return add(a, &(struct amap){ .path = "[vdso]" });
	if ((r->hdr.flags & LWPROF_MMAP_ANON) || r->path[0] != '/')
		return 0;	/* //anon: no file */
	return add(a, &key);
}

void archiver_mmap(struct archiver *a, const struct lwprof_rec_mmap *r)
{
	pthread_mutex_lock(&a->mu);
	add_rec(a, r);		/* out of memory: the final scan retries */
	pthread_mutex_unlock(&a->mu);
}

/* index.txt from the maps archived so far; called with a->mu held. */
static int write_index(struct archiver *a)
{
	FILE *f;
	size_t i;
	int fd, err = 0;

	fd = openat(a->adir, ".index.txt.tmp", O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	for (i = 0; i < a->n; i++)
		if (a->v[i].line)
			fprintf(f, "%s\n", a->v[i].line);
	if (fclose(f) || renameat(a->adir, ".index.txt.tmp", a->adir,
				  "index.txt") < 0)
		err = -errno;
	a->dirty = false;
	return err;
}

/*
 * Archive the maps not yet taken.  The copy runs without the lock on a
 * private struct amap: add() may move a->v meanwhile.
 */
static void work(struct archiver *a)
{
	struct amap m;
	size_t i;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		if (a->next < a->n) {
			i = a->next++;
			m = a->v[i];
			pthread_mutex_unlock(&a->mu);
			if (!strcmp(m.path, "[vdso]"))
				archive_vdso(a->adir, &m);
			else
				archive_one(a->adir, &m);
			pthread_mutex_lock(&a->mu);
			a->v[i].line = m.line;
			a->v[i].warn = m.warn;
			a->dirty = true;
			continue;
		}
		if (a->dirty)
			write_index(a);	/* the final one reports errors */
		if (a->stop)
			break;
		pthread_cond_wait(&a->cv, &a->mu);
	}
	pthread_mutex_unlock(&a->mu);
}

static void *worker_main(void *arg)
{
	work(arg);
	return NULL;
}

int archiver_start(struct experiment *e, struct archiver **ap)
{
	struct archiver *a;
	int err;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->e = e;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (mkdirat(e->dirfd, "archives", 0755) < 0 && errno != EEXIST) {
		err = -errno;
		goto fail;
	}
	a->adir = openat(e->dirfd, "archives", O_RDONLY | O_DIRECTORY |
			 O_CLOEXEC);
	if (a->adir < 0) {
		err = -errno;
		goto fail;
	}
	/* Without the thread, archiver_finish() does all the work. */
	a->threaded = !pthread_create(&a->worker, NULL, worker_main, a);
	*ap = a;
	return 0;
fail:
	free(a->v);
	free(a);
	return err;
}

/* Every MMAP record in the experiment's files, for what the drain missed. */
static void scan_files(struct archiver *a)
{
	struct experiment *e = a->e;
	const struct lwprof_rec *rec;
	struct recfile f;
	char name[32], msg[256];
	unsigned int i;
	size_t off;
	int ret;

	for (i = 0; i < e->nr_cpus; i++) {
		snprintf(name, sizeof(name), "cpu.%u.rec", i);
		if (recfile_open(&f, e->dirfd, name, msg, sizeof(msg))) {
			exp_warn(e, "archives: %s", msg);
			continue;
		}
		pthread_mutex_lock(&a->mu);
		while ((ret = recfile_next(&f, &rec, &off, msg,
					   sizeof(msg))) > 0)
			if (rec->type == LWPROF_REC_MMAP &&
			    add_rec(a, (const void *)rec))
				exp_warn(e, "archives: out of memory");
		pthread_mutex_unlock(&a->mu);
		if (ret < 0)
			exp_warn(e, "archives: %s", msg);
		recfile_close(&f);
	}
}

static void release(struct archiver *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].path);
		free(a->v[i].line);
		free(a->v[i].warn);
	}
	free(a->v);
	close(a->adir);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

static void join(struct archiver *a)
{
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	if (a->threaded)
		pthread_join(a->worker, NULL);
	else
		work(a);
	a->threaded = false;
}

int archiver_finish(struct archiver *a)
{
	size_t i;
	int err;

	if (!a)
		return 0;
	scan_files(a);
	archive_kallsyms(a->e, a->adir);
	join(a);
	err = write_index(a);
	if (err)
		exp_warn(a->e, "archives: index.txt: %s", strerror(-err));
	for (i = 0; i < a->n; i++)
		if (a->v[i].warn)
			exp_warn(a->e, "%s", a->v[i].warn);
	release(a);
	return err;
}

void archiver_cancel(struct archiver *a)
{
	if (!a)
		return;
	if (a->threaded) {
		pthread_mutex_lock(&a->mu);
		a->stop = true;
		a->next = a->n;		/* copy nothing more */
		pthread_cond_signal(&a->cv);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->worker, NULL);
	}
	release(a);
}
