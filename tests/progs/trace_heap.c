// SPDX-License-Identifier: GPL-2.0
/*
 * Heap tracing's ground truth (tests/host/trace_heap.sh): known
 * allocations, frees and leaks at known functions, each function's
 * totals printed as "truth FUNC ALLOCS BYTES LEAKS LEAKED" (what lwprof
 * print must show inclusive at FUNC).  Also a second thread's churn
 * (its buffer is written out when it ends), blocks four threads make
 * and the main thread frees later, and a signal handler that
 * allocates while the main thread is in the allocator (not counted: only
 * that the run survives and the rest stays exact).  Last, libz loaded
 * with dlopen allocates in compress(): its frames must be named.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile keep[16];
static volatile int three = 3, churn_n = 1000;
static volatile unsigned long handler_calls;

static void truth(const char *f, int n, long bytes, int leaks, long leaked)
{
	printf("truth %s %d %ld %d %ld\n", f, n, bytes, leaks, leaked);
}

NOINLINE static void leak_a(void)
{
	int i;

	for (i = 0; i < three; i++)
		keep[i] = malloc(100);
	truth("leak_a", 3, 300, 3, 300);
}

NOINLINE static void leak_b(void)
{
	keep[3] = calloc(10, 7);
	truth("leak_b", 1, 70, 1, 70);
}

NOINLINE static void churn(void)
{
	char *p;
	int i;

	for (i = 0; i < churn_n; i++) {
		p = malloc(64);
		p[0] = 1;
		free(p);
	}
	truth("churn", 1000, 64000, 0, 0);
}

NOINLINE static void realloc_chain(void)
{
	static const size_t sz[] = { 16, 32, 64, 128, 256 };
	void *r = NULL;
	size_t i;

	for (i = 0; i < 5; i++)
		r = realloc(r, sz[i]);
	free(r);
	truth("realloc_chain", 5, 496, 0, 0);
}

NOINLINE static void aligned(void)
{
	void *p;

	if (posix_memalign(&p, 64, 512))
		exit(1);
	keep[4] = p;
	free(memalign(64, 128));
	free(aligned_alloc(64, 256));
	free(valloc(4096));
	truth("aligned", 4, 512 + 128 + 256 + 4096, 1, 512);
}

NOINLINE static void maps(void)
{
	void *a = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(a, 8192);
	keep[5] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	truth("maps", 2, 12288, 1, 4096);
}

NOINLINE static void *thread_churn(void *arg)
{
	int i;

	for (i = 0; i < 500; i++)
		free(malloc(32));
	truth("thread_churn", 500, 16000, 0, 0);
	return NULL;
}

#define HANDOFF_THREADS	4
#define HANDOFF_N	2000
#define HANDOFF_KEPT	10

static void *volatile handed[HANDOFF_THREADS * HANDOFF_N];

/* Thread k makes HANDOFF_N blocks of 24 + k bytes for another to free. */
NOINLINE static void *handoff_make(void *arg)
{
	long k = (long)arg;
	int i;

	for (i = 0; i < HANDOFF_N; i++)
		handed[k * HANDOFF_N + i] = malloc(24 + k);
	return NULL;
}

/*
 * Blocks made at once by four threads, freed by the main thread a slice
 * of the library's later (a free counted against another thread's
 * allocation of an older slice), all but the first HANDOFF_KEPT (thread
 * 0's: 24 bytes each).
 */
NOINLINE static void handoff(void)
{
	pthread_t t[HANDOFF_THREADS];
	long k;
	int i;

	for (k = 0; k < HANDOFF_THREADS; k++)
		if (pthread_create(&t[k], NULL, handoff_make, (void *)k))
			exit(1);
	for (k = 0; k < HANDOFF_THREADS; k++)
		pthread_join(t[k], NULL);
	usleep(250000);
	for (i = HANDOFF_KEPT; i < HANDOFF_THREADS * HANDOFF_N; i++)
		free(handed[i]);
	truth("handoff_make", HANDOFF_THREADS * HANDOFF_N,
	      HANDOFF_N * (4 * 24 + 0 + 1 + 2 + 3), HANDOFF_KEPT, HANDOFF_KEPT * 24);
}

static void on_alarm(int sig)
{
	free(malloc(24));
	handler_calls++;
}

/* Allocations while SIGALRM handlers allocate too: the run survives. */
NOINLINE static void under_signals(void)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	int i;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 20000; i++)
		free(malloc(48));
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	fprintf(stderr, "trace_heap: %lu signal handlers ran\n", handler_calls);
}

/* A library the program does not link: its allocations, under compress. */
NOINLINE static void dl_alloc(void)
{
	int (*compress)(unsigned char *, unsigned long *, const unsigned char *,
			unsigned long);
	static unsigned char src[1024], dst[2048];
	unsigned long n = sizeof(dst);
	void *z = dlopen("libz.so.1", RTLD_NOW);

	compress = z ? (void *)dlsym(z, "compress") : NULL;
	if (compress && !compress(dst, &n, src, sizeof(src)))
		printf("libz compress\n");
}

int main(int argc, char **argv)
{
	static char obuf[BUFSIZ];
	pthread_t t;

	/*
	 * stdout's buffer is ours: stdio would malloc it at the first printf,
	 * inside a function whose truth is printed (a leak there, which a
	 * stack copy reaching that far rightly charges to it).
	 */
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	leak_a();
	leak_b();
	churn();
	realloc_chain();
	aligned();
	maps();
	if (pthread_create(&t, NULL, thread_churn, NULL) ||
	    pthread_join(t, NULL))
		return 1;
	handoff();
	if (argc > 1 && !strcmp(argv[1], "signals"))
		under_signals();
	dl_alloc();
	fflush(stdout);
	return 0;
}
