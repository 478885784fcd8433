// SPDX-License-Identifier: GPL-2.0
/*
 * touch_pages N: map N fresh anonymous pages and write one byte to each:
 * N minor page faults, then exit 0.  Prints the process's pid first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i, pg = sysconf(_SC_PAGESIZE);
	volatile char *p;

	if (argc != 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: touch_pages N\n");
		return 2;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
	return 0;
}
