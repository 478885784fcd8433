// SPDX-License-Identifier: GPL-2.0
/*
 * mem_hog MIB SECS: map MIB mebibytes of anonymous memory, write every
 * page, print "ready" and hold it for SECS seconds.  For tests that run
 * under memory pressure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len;
	char *p;

	if (argc < 3) {
		fprintf(stderr, "usage: mem_hog MIB SECS\n");
		return 2;
	}
	len = strtoul(argv[1], NULL, 10) << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("mem_hog: mmap");
		return 1;
	}
	memset(p, 1, len);
	printf("ready\n");
	fflush(stdout);
	sleep(atoi(argv[2]));
	return 0;
}
