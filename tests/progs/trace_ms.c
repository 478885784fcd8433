// SPDX-License-Identifier: GPL-2.0
/*
 * Traced calls whose microstates the program knows (tests/guest/
 * trace_mstate.sh): each call is measured around it by the thread that
 * makes it, from the kernel's own per-thread statistics, and printed as
 *
 *   call KIND ID WALL_NS CPU_NS RUNQ_NS SLEPT_NS
 *
 * KIND the call (lock: pthread_mutex_lock; read: read), ID the mutex's
 * address or the descriptor, WALL the time in the call, CPU the thread's
 * CPU time in it (CLOCK_THREAD_CPUTIME_ID: User + System + Trap), RUNQ
 * its run-queue wait in it (schedstat: Wait CPU), SLEPT its time blocked
 * in it (sum_sleep_runtime, -1 without schedstats): in a futex (User
 * Lock) for the mutex, in a pipe (Sleep) for the pipe's read.  The
 * windows nest, the wall time's outermost, the time blocked innermost,
 * and none of their edges blocks.
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
static int pfd[2];

struct truth {
	uint64_t wall, cpu;
	unsigned long long run, runq;
	long long slept;
};

static void before(struct truth *t)
{
	t->wall = ms_now();
	t->cpu = ms_cpu();
	ms_schedstat(&t->run, &t->runq);
	t->slept = ms_slept();
}

static void after(struct truth *t, const char *kind, unsigned long long id)
{
	long long slept = ms_slept();
	unsigned long long run, runq;
	uint64_t cpu, wall;

	ms_schedstat(&run, &runq);
	cpu = ms_cpu();
	wall = ms_now();
	printf("call %s %llu %llu %llu %llu %lld\n", kind, id,
	       (unsigned long long)(wall - t->wall),
	       (unsigned long long)(cpu - t->cpu), runq - t->runq,
	       slept < 0 || t->slept < 0 ? -1 : slept - t->slept);
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

int main(void)
{
	struct truth t;
	pthread_t th;
	char c, *buf;
	int z;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&held, 0, 0);
	if (pipe(pfd) || (z = open("/dev/zero", O_RDONLY)) < 0) {
		perror("pipe, /dev/zero");
		return 2;
	}
	buf = malloc(ZERO_BYTES);
	if (!buf)
		return 2;
	memset(buf, 1, ZERO_BYTES);	/* no page faults in the read */

	pthread_create(&th, NULL, holder, NULL);
	while (sem_wait(&held))
		;
	before(&t);
	pthread_mutex_lock(&mtx);
	after(&t, "lock", (unsigned long long)(uintptr_t)&mtx);
	pthread_mutex_unlock(&mtx);
	pthread_join(th, NULL);

	pthread_create(&th, NULL, writer, NULL);
	before(&t);
	if (read(pfd[0], &c, 1) != 1)
		return 2;
	after(&t, "read", pfd[0]);
	pthread_join(th, NULL);

	before(&t);
	if (read(z, buf, ZERO_BYTES) != ZERO_BYTES)
		return 2;
	after(&t, "read", z);
	return 0;
}
