/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A register and stack snapshot, as tests/progs/qsort_unwind writes it and
 * tests/lib/gen_exp turns it into a sample record: this header, the stack
 * bytes from regs[LWPROF_REG_SP] up, then the text of /proc/self/maps.
 */
#ifndef LWPROF_CAPTURE_H
#define LWPROF_CAPTURE_H

#include <stdint.h>

#define CAPTURE_MAGIC "LWCAPT01"

struct lwprof_capture {
	char magic[8];
	uint32_t pid, tid;
	uint64_t regs[17];	/* DWARF order, as LWPROF_NR_REGS */
	uint32_t stack_size;
	uint32_t pad0;
};

#endif
