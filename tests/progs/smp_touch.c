// SPDX-License-Identifier: GPL-2.0
/*
 * smp_touch PAGES THREADS: map PAGES new anonymous pages (no huge pages)
 * and have THREADS threads write one byte to each page of their share,
 * so each page is faulted in once; exit 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

static char *mem;
static long pages, nthreads, page;

static void *toucher(void *arg)
{
	long k = (long)arg, i;

	for (i = k; i < pages; i += nthreads)
		mem[i * page] = 1;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long i;

	if (argc != 3) {
		fprintf(stderr, "usage: smp_touch PAGES THREADS\n");
		return 2;
	}
	pages = atol(argv[1]);
	nthreads = atol(argv[2]);
	page = sysconf(_SC_PAGESIZE);
	if (nthreads < 1 || nthreads > 64)
		return 2;
	mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || madvise(mem, pages * page, MADV_NOHUGEPAGE))
		return 1;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, toucher, (void *)i))
			return 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
