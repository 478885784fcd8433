/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register and stack snapshots, as tests/progs/qsort_unwind (one) and
 * unwind_sampler (many) write them and tests/lib/gen_exp turns them into
 * sample records: per snapshot this header and the stack bytes from
 * regs[LWPROF_REG_SP] up; after the last, the text of /proc/self/maps.
 */
#ifndef LWPROF_CAPTURE_H
#define LWPROF_CAPTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE_MAGIC "LWCAPT01"

struct lwprof_capture {
	char magic[8];
	uint32_t pid, tid;
	uint64_t regs[17];	/* DWARF order, as LWPROF_NR_REGS */
	uint32_t stack_size;
	uint32_t pad0;
};

/* The end of the main thread's stack, from /proc/self/maps; 0 if unknown. */
static inline uint64_t capture_stack_top(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t top = 0;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]"))
			top = strtoull(strchr(line, '-') + 1, NULL, 16);
	if (f)
		fclose(f);
	return top;
}

#endif
