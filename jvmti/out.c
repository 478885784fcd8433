// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's file, java.PID.rec (agent.h): records go through one
 * shared buffer under a mutex, or, for what a Java thread writes about
 * itself (its ticks, where it blocks), through the thread's own buffer,
 * which its profiling signal may fill: no lock there, only the thread's
 * busy flag, which a tick that finds set drops (counted).  Buffers are
 * written with O_APPEND, one whole buffer of whole records a write, so
 * threads' writes never interleave within a record.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libexp/format.h"
#include "agent.h"

#define SHARED_BUF	(256u << 10)
#define THREAD_BUF	(32u << 10)

__thread struct ja_thread *ja_self JA_TLS;
unsigned long ja_dropped;

static int fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *shared;
static size_t shared_len;
static struct ja_thread *threads;	/* under lock */

/* write() all of it; async-signal-safe. */
static void put_raw(const void *p, size_t n)
{
	ssize_t w;

	while (n && fd >= 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p = (const char *)p + w;
		n -= w;
	}
}

int ja_out_open(const char *dir)
{
	struct exp_file_header h;
	char path[4096];

	snprintf(path, sizeof(path), "%s/" EXP_JAVA_FMT, dir, ja_pid);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	shared = malloc(SHARED_BUF);
	if (!shared) {
		close(fd);
		fd = -1;
		return -ENOMEM;
	}
	exp_file_header_init(&h, EXP_CPU_NONE, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	put_raw(&h, sizeof(h));
	return 0;
}

void ja_put(const void *rec, size_t size)
{
	pthread_mutex_lock(&lock);
	if (shared && shared_len + size > SHARED_BUF) {
		put_raw(shared, shared_len);
		shared_len = 0;
	}
	if (shared && size <= SHARED_BUF) {
		memcpy(shared + shared_len, rec, size);
		shared_len += size;
	} else {
		put_raw(rec, size);
	}
	pthread_mutex_unlock(&lock);
}

void *ja_reserve(struct ja_thread *t, size_t size)
{
	if (!t || size > THREAD_BUF ||
	    __atomic_exchange_n(&t->busy, 1, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&ja_dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (t->dead) {
		__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
		return NULL;
	}
	if (t->len + size > THREAD_BUF) {
		put_raw(t->buf, t->len);
		t->len = 0;
	}
	return t->buf + t->len;
}

void ja_commit(struct ja_thread *t, size_t size)
{
	t->len += size;
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

void ja_put_stack(struct ja_thread *t, uint16_t what, uint16_t flags,
		  const struct exp_jframe *f, int n, int err)
{
	size_t size = sizeof(struct exp_rec_jstack) +
		      (n > 0 ? n : 0) * sizeof(*f);
	struct exp_rec_jstack *s = ja_reserve(t, size);

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	s->hdr.type = EXP_REC_JSTACK;
	s->hdr.flags = flags;
	s->hdr.size = size;
	s->time_ns = ja_now();
	s->pid = ja_pid;
	s->tid = t->tid;
	s->what = what;
	s->nframes = n > 0 ? n : 0;
	s->err = n > 0 ? 0 : err;
	if (n > 0)
		memcpy(s + 1, f, n * sizeof(*f));
	ja_commit(t, size);
}

struct ja_thread *ja_thread_new(JNIEnv *env)
{
	struct ja_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->buf = malloc(THREAD_BUF);
	if (!t->buf) {
		free(t);
		return NULL;
	}
	t->env = env;
	t->tid = syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&lock);
	return t;
}

/* Take t's buffer for good (its ticks drop from here): written out. */
static void thread_flush_final(struct ja_thread *t)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&t->busy, 1, __ATOMIC_ACQUIRE))
		if (++spins > 1000000)
			return;	/* a thread stopped mid-record: leave it */
	if (!t->dead)
		put_raw(t->buf, t->len);
	t->len = 0;
	t->dead = true;
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

void ja_thread_end(struct ja_thread *t)
{
	struct ja_thread **p;

	if (!t)
		return;
	pthread_mutex_lock(&lock);
	ja_tick_stop(t);
	thread_flush_final(t);
	for (p = &threads; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	pthread_mutex_unlock(&lock);
	if (ja_self == t)
		ja_self = NULL;
	free(t->buf);
	free(t);
}

void ja_out_close(void)
{
	struct ja_thread *t;

	pthread_mutex_lock(&lock);
	for (t = threads; t; t = t->next) {
		ja_tick_stop(t);
		thread_flush_final(t);
	}
	if (shared)
		put_raw(shared, shared_len);
	shared_len = 0;
	free(shared);
	shared = NULL;
	if (fd >= 0)
		close(fd);
	fd = -1;
	pthread_mutex_unlock(&lock);
}
