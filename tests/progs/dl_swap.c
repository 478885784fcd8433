// SPDX-License-Identifier: GPL-2.0
/*
 * dl_swap LIB_A SECS_A LIB_B SECS_B: dlopen LIB_A (a copy of libz), spend
 * SECS_A seconds of CPU in its crc32(), dlclose it; then dlopen LIB_B (a
 * copy of the same size, which the loader puts at A's address) and spend
 * SECS_B seconds in its crc32().  Prints "A ADDR CPU" and "B ADDR CPU": the
 * address of each crc32 and the CPU seconds of each phase, dlopen and
 * dlclose left out.  The CPU clock is a system call: it is read only now
 * and then, so that the time goes to the library's code.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef unsigned long (*crc_fn)(unsigned long, const unsigned char *,
				unsigned int);

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One phase: load lib, spin secs in its crc32, unload it. */
static int phase(const char *tag, const char *lib, double secs)
{
	static unsigned char buf[65536];
	volatile unsigned long sum = 0;
	double t0, end;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	crc_fn crc = h ? (crc_fn)dlsym(h, "crc32") : NULL;

	if (!crc) {
		fprintf(stderr, "dl_swap: %s\n", dlerror());
		return -1;
	}
	t0 = cpu_now();
	end = t0 + secs;
	while (cpu_now() < end)
		for (int i = 0; i < 16; i++)
			sum += crc(sum, buf, sizeof(buf));
	printf("%s %p %.6f\n", tag, (void *)crc, cpu_now() - t0);
	fflush(stdout);
	if (dlclose(h)) {
		fprintf(stderr, "dl_swap: dlclose: %s\n", dlerror());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: dl_swap LIB_A SECS_A LIB_B SECS_B\n");
		return 2;
	}
	if (phase("A", argv[1], atof(argv[2])) || phase("B", argv[3], atof(argv[4])))
		return 1;
	return 0;
}
