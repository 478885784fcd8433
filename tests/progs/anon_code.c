// SPDX-License-Identifier: GPL-2.0
/*
 * anon_code SECS: run for SECS seconds almost all in code of no file: a
 * countdown loop copied into an anonymous mapping (mmap, then mprotect
 * to read and execute), as a JIT compiler's code is.  Prints the
 * mapping's address on stdout; exits 77 where it has no code to copy
 * (not x86-64) or may not make memory executable.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov eax, edi; 1: dec eax; jnz 1b; ret */
	static const unsigned char loop[] = { 0x89, 0xf8, 0xff, 0xc8,
					      0x75, 0xfc, 0xc3 };
	void (*fn)(unsigned int);
	double end;
	void *m;

	if (argc != 2) {
		fprintf(stderr, "usage: anon_code SECS\n");
		return 2;
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 2;
	memcpy(m, loop, sizeof(loop));
	if (mprotect(m, 4096, PROT_READ | PROT_EXEC)) {
		perror("mprotect PROT_EXEC");
		return 77;
	}
	printf("%p\n", m);
	fflush(stdout);
	fn = (void (*)(unsigned int))m;
	end = now() + atof(argv[1]);
	while (now() < end)
		fn(1000000);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "anon_code: no code to copy on this architecture\n");
	return 77;
#endif
}
