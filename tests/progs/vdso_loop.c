// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_loop SECS: call clock_gettime(CLOCK_MONOTONIC) for SECS seconds, so
 * that nearly all of the time is in the vDSO's __vdso_clock_gettime (or in
 * the system call it falls back to, under a clock the vDSO cannot read).
 * vdso_loop --dump FILE: write this process's vDSO image (its [vdso] line
 * of /proc/self/maps) to FILE, the bytes the recorder archives as
 * BUILDID/vdso.so, for the analyzer's tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int dump(const char *file)
{
	FILE *maps = fopen("/proc/self/maps", "r"), *out;
	unsigned long lo = 0, hi = 0;
	char line[512];

	while (maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%lx-%lx", &lo, &hi);
	if (maps)
		fclose(maps);
	out = lo ? fopen(file, "w") : NULL;
	if (!out || fwrite((void *)lo, 1, hi - lo, out) != hi - lo || fclose(out)) {
		fprintf(stderr, "vdso_loop: cannot write the vDSO to %s\n", file);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	double end;

	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: vdso_loop SECS | vdso_loop --dump FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + atof(argv[1]);
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
