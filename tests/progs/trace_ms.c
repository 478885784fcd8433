// SPDX-License-Identifier: GPL-2.0
/*
 * Traced calls whose microstates are known (tests/guest/trace_mstate.sh).
 * Each call is the one thing a thread of its own does: it blocks nowhere
 * else, so its time blocked, in each state, is the thread's whole (the
 * module's precise per-thread totals, usage.txt, have them).  The thread
 * prints
 *
 *   call KIND ID TID WALL_NS
 *
 * KIND the call (lock: pthread_mutex_lock; read: read), ID the mutex's
 * address or the descriptor, WALL the time in the call by the vDSO's
 * clock, read around it.
 *
 *   lock   a mutex another thread holds for 300 ms (it sleeps holding it)
 *   read   a pipe another thread writes to after 200 ms
 *   read   64 MiB from /dev/zero into touched memory: System CPU
 */
#include <fcntl.h>

#include "mstate.h"

#define HOLD_NS		(300 * MS_MS)
#define PIPE_NS		(200 * MS_MS)
#define ZERO_BYTES	(64u << 20)

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static sem_t held;
static int pfd[2], zfd;
static char *zbuf;

struct call {
	const char *kind;
	unsigned long long id;
	int (*fn)(void);
	int tid;
	uint64_t wall;
};

static void *caller(void *arg)
{
	struct call *c = arg;
	uint64_t t0 = ms_now();

	if (c->fn())
		exit(2);
	c->wall = ms_now() - t0;
	c->tid = ms_gettid();
	return NULL;
}

static int lock(void)
{
	return pthread_mutex_lock(&mtx) || pthread_mutex_unlock(&mtx);
}

static int pipe_read(void)
{
	char ch;

	return read(pfd[0], &ch, 1) != 1;
}

static int zero_read(void)
{
	return read(zfd, zbuf, ZERO_BYTES) != ZERO_BYTES;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { ns / MS_NS, ns % MS_NS };

	while (nanosleep(&ts, &ts))
		;
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&mtx);
	sem_post(&held);
	nap(HOLD_NS);
	pthread_mutex_unlock(&mtx);
	return NULL;
}

static void *writer(void *arg)
{
	nap(PIPE_NS);
	if (write(pfd[1], "x", 1) != 1)
		exit(2);
	return NULL;
}

/* c in a thread of its own, beside helper (or none). */
static void run(struct call *c, void *(*helper)(void *))
{
	pthread_t th, h;

	if (helper && pthread_create(&h, NULL, helper, NULL))
		exit(2);
	if (helper == holder)
		while (sem_wait(&held))
			;
	if (pthread_create(&th, NULL, caller, c) || pthread_join(th, NULL) ||
	    (helper && pthread_join(h, NULL)))
		exit(2);
	printf("call %s %llu %d %llu\n", c->kind, c->id, c->tid,
	       (unsigned long long)c->wall);
}

int main(void)
{
	struct call lk = { .kind = "lock", .id = (uintptr_t)&mtx, .fn = lock };
	struct call pr = { .kind = "read", .fn = pipe_read };
	struct call zr = { .kind = "read", .fn = zero_read };

	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&held, 0, 0);
	if (pipe(pfd) || (zfd = open("/dev/zero", O_RDONLY)) < 0) {
		perror("pipe, /dev/zero");
		return 2;
	}
	zbuf = malloc(ZERO_BYTES);
	if (!zbuf)
		return 2;
	memset(zbuf, 1, ZERO_BYTES);	/* no page faults in the read */
	pr.id = pfd[0];
	zr.id = zfd;
	run(&lk, holder);
	run(&pr, writer);
	run(&zr, NULL);
	return 0;
}
