// SPDX-License-Identifier: GPL-2.0
/*
 * Sync wait tracing's ground truth (tests/host/trace_sync.sh): waits of
 * known length in known functions, each timed by the program around the
 * call and printed as "truth FUNC NS DELAY" (the traced wait lies inside
 * it; DELAY ns of it the thread waited for a CPU, which is how much of it
 * a preemption may have put outside the library's clock reads);
 * and 20,000 uncontended mutex locks, each timed the same way against
 * the threshold collect passed (LWPROF_TRACE), printed as "over N": the
 * traced waits of uncontended() can only be fewer.
 */
#include <dirent.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define MS 1000000ULL

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem;
static volatile int ready;

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void nap(unsigned long long ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts))
		;
}

/* The thread's time waiting for a CPU so far (schedstat's run_delay). */
static unsigned long long run_delay(void)
{
	unsigned long long run = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

/* Where a timed wait began: the run delay first, the clock second. */
struct mark {
	unsigned long long t, delay;
};

static struct mark mark(void)
{
	struct mark m;

	m.delay = run_delay();
	m.t = now();
	return m;
}

/* A wait timed from m: the clock first, the run delay second. */
static void truth(const char *f, struct mark m)
{
	unsigned long long t = now();

	printf("truth %s %llu %llu\n", f, t - m.t, run_delay() - m.delay);
}

NOINLINE static void *mutex_waiter(void *arg)
{
	struct mark t0 = mark();

	pthread_mutex_lock(&mtx);
	truth("mutex_waiter", t0);
	pthread_mutex_unlock(&mtx);
	return NULL;
}

NOINLINE static void *cond_waiter(void *arg)
{
	struct mark t0;

	pthread_mutex_lock(&cmtx);
	t0 = mark();
	ready = 1;
	while (ready != 2)
		pthread_cond_wait(&cond, &cmtx);
	truth("cond_waiter", t0);
	pthread_mutex_unlock(&cmtx);
	return NULL;
}

NOINLINE static void *sem_waiter(void *arg)
{
	struct mark t0 = mark();

	sem_wait(&sem);
	truth("sem_waiter", t0);
	return NULL;
}

NOINLINE static void *rwlock_waiter(void *arg)
{
	struct mark t0 = mark();

	pthread_rwlock_wrlock(&rw);
	truth("rwlock_waiter", t0);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

NOINLINE static void *barrier_waiter(void *arg)
{
	struct mark t0 = mark();

	pthread_barrier_wait(&bar);
	truth("barrier_waiter", t0);
	return NULL;
}

NOINLINE static void *sleeper(void *arg)
{
	nap(100 * MS);
	return NULL;
}

NOINLINE static void joiner(pthread_t t)
{
	struct mark t0 = mark();

	pthread_join(t, NULL);
	truth("joiner", t0);
}

/* glibc 2.30's clock variants: a semaphore never posted, 50 ms. */
NOINLINE static void clock_waiter(void)
{
	static sem_t never;
	struct mark t0;
	struct timespec ts;

	sem_init(&never, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 50 * MS;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	t0 = mark();
	sem_clockwait(&never, CLOCK_MONOTONIC, &ts);
	truth("clock_waiter", t0);
}

/* The waits over the threshold the library got, as seen from outside. */
NOINLINE static void uncontended(void)
{
	const char *v = getenv("LWPROF_TRACE");
	unsigned long long thr = 0, t0, d;
	unsigned int i, over = 0;

	if (v && strchr(v, ','))
		thr = strtoull(strchr(v, ',') + 1, NULL, 10);
	for (i = 0; i < 20000; i++) {
		t0 = now();
		pthread_mutex_lock(&mtx);
		d = now() - t0;
		pthread_mutex_unlock(&mtx);
		over += d >= thr;
	}
	printf("over %u\n", over);
}

#define TASKS_MAX	64

/* The threads of this process (their tids): how many, at most max. */
static int tasks(pid_t *v, int max)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	while (d && n < max && (e = readdir(d)))
		if (e->d_name[0] != '.')
			v[n++] = atoi(e->d_name);
	if (d)
		closedir(d);
	return n;
}

/*
 * Is thread tid asleep in its wait: a futex (every wait here) or a
 * sleep (the sleeper), as /proc says; or gone?
 */
static int blocked(pid_t tid)
{
	char path[64], buf[32] = "";
	FILE *f;
	long nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	nr = strtol(buf, NULL, 10);
	return nr == SYS_futex || nr == SYS_nanosleep || nr == SYS_clock_nanosleep;
}

/*
 * Start fn and let it block: on a loaded machine a new thread may not
 * run for a long time, so wait until /proc shows it asleep in its wait
 * (it will wait ms more before it is let go).
 */
static pthread_t start(void *(*fn)(void *))
{
	pid_t before[TASKS_MAX], after[TASKS_MAX], tid = 0;
	int nb = tasks(before, TASKS_MAX), na, i, j, k;
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL))
		exit(1);
	for (k = 0; !tid && k < 60000; k++) {
		na = tasks(after, TASKS_MAX);
		for (i = 0; i < na && !tid; i++) {
			for (j = 0; j < nb && before[j] != after[i]; j++)
				;
			if (j == nb)
				tid = after[i];
		}
		if (!tid)
			nap(MS);
	}
	for (k = 0; tid && k < 60000 && !blocked(tid); k++)
		nap(MS);
	nap(20 * MS);
	return t;
}

int main(void)
{
	pthread_t t;

	pthread_mutex_lock(&mtx);
	t = start(mutex_waiter);
	nap(300 * MS);
	pthread_mutex_unlock(&mtx);
	pthread_join(t, NULL);

	t = start(cond_waiter);
	while (!ready)
		nap(MS);
	nap(200 * MS);
	pthread_mutex_lock(&cmtx);
	ready = 2;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&cmtx);
	pthread_join(t, NULL);

	sem_init(&sem, 0, 0);
	t = start(sem_waiter);
	nap(50 * MS);
	sem_post(&sem);
	pthread_join(t, NULL);

	pthread_rwlock_rdlock(&rw);
	t = start(rwlock_waiter);
	nap(50 * MS);
	pthread_rwlock_unlock(&rw);
	pthread_join(t, NULL);

	pthread_barrier_init(&bar, NULL, 2);
	t = start(barrier_waiter);
	nap(50 * MS);
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);

	joiner(start(sleeper));
	clock_waiter();
	uncontended();
	return 0;
}
