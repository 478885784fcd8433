/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OMPT tool (docs/guide/openmp.md), part of the tracing library: an
 * OpenMP runtime that implements OMPT finds ompt_start_tool() in the
 * library collect preloads, and from then on tells it of parallel
 * regions, implicit tasks and waits, which it writes as the OpenMP
 * records of libexp/omp.h through the library's per-thread buffers.
 * tool.c: the start and the callbacks; stack.c: the call stacks the
 * records name; clock.c: the records' clock.
 */
#ifndef LWPROF_OMPT_H
#define LWPROF_OMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "ompt/abi.h"

/*
 * The id of the calling thread's stack here (0: none), written as a
 * stack record the first time; key: what makes it the same stack as
 * before (the program's return address and the task's frames).
 */
uint32_t omp_stack(uint64_t key1, uint64_t key2, uint64_t key3);
/* at the start: the unwinder loaded, outside the program's calls */
void omp_stack_init(void);

/*
 * The clock (CLOCK_MONOTONIC ns); omp_clock_ms() with the microstates
 * as tr_clock_ms() (true: v is this thread's).  omp_clock_init() at the
 * start, outside the program's calls, chooses how it is read.
 */
uint64_t omp_now(void);
bool omp_clock_ms(uint64_t *t, uint64_t *v);
void omp_clock_init(void);

#endif
