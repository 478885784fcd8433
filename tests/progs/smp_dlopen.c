// SPDX-License-Identifier: GPL-2.0
/*
 * smp_dlopen: sleep 1 s, then dlopen() libm.so.6 (which the program is not
 * linked with) and call its cos() for 1 s.  Prints "dlopen NS", the
 * CLOCK_MONOTONIC time of the dlopen() call, and "cos ADDR".
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(void)
{
	struct timespec one = { 1, 0 };
	double (*cosine)(double);
	volatile double sum = 0;
	uint64_t t0, end;
	void *lib;

	nanosleep(&one, NULL);
	t0 = now();
	lib = dlopen("libm.so.6", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "smp_dlopen: %s\n", dlerror());
		return 1;
	}
	cosine = (double (*)(double))dlsym(lib, "cos");
	if (!cosine)
		return 1;
	printf("dlopen %llu\ncos %p\n", (unsigned long long)t0, (void *)cosine);
	end = now() + 1000000000;
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sum += cosine(i * 0.001);
	return 0;
}
