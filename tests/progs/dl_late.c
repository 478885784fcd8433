// SPDX-License-Identifier: GPL-2.0
/*
 * dl_late SECS [LIB]: spin SECS seconds of CPU in main, then dlopen LIB
 * (default libz.so.1, which the program does not link) and spend SECS more
 * seconds of CPU in its crc32(), so that samples land in a library loaded
 * mid-run.  Prints the address of crc32 on stdout.  With LIB (a copy of
 * libz) the program also removes its files while it runs: it unlinks its
 * executable (argv[0]) at once and LIB right after the dlopen, so whatever
 * analyses the run must have archived both while they were mapped.  The
 * CPU clock is a system call: it is read only now and then, so that the
 * time goes to user mode.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long (*crc)(unsigned long, const unsigned char *, unsigned int);
	static unsigned char buf[65536];
	volatile unsigned long n = 0, sum = 0;
	const char *lib = argc == 3 ? argv[2] : NULL;
	double secs, end;
	void *h;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: dl_late SECS [LIB]\n");
		return 2;
	}
	if (lib && unlink(argv[0])) {
		perror("dl_late: unlink argv[0]");
		return 1;
	}
	secs = atof(argv[1]);
	end = cpu_now() + secs;
	while (cpu_now() < end)
		for (int i = 0; i < 1000000; i++)
			n++;
	h = dlopen(lib ? lib : "libz.so.1", RTLD_NOW);
	crc = h ? (void *)dlsym(h, "crc32") : NULL;
	if (!crc) {
		fprintf(stderr, "dl_late: %s\n", dlerror());
		return 1;
	}
	if (lib && unlink(lib)) {
		perror("dl_late: unlink LIB");
		return 1;
	}
	printf("%p\n", (void *)crc);
	fflush(stdout);
	end = cpu_now() + secs;
	while (cpu_now() < end)
		for (int i = 0; i < 16; i++)
			sum += crc(sum, buf, sizeof(buf));
	return 0;
}
