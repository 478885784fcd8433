/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the MPI test programs share: the clock the tracing library reads
 * (CLOCK_MONOTONIC, so a program's own times compare with its records),
 * sleeping, and the truth lines a test reads ("truth KEY VALUE...").
 */
#ifndef LWPROF_TESTS_MPITEST_H
#define LWPROF_TESTS_MPITEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t mt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void mt_sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts))
		;
}

#define MT_CHECK(call)							\
	do {								\
		if ((call) != MPI_SUCCESS) {				\
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__,	\
				__LINE__, #call);			\
			MPI_Abort(MPI_COMM_WORLD, 3);			\
		}							\
	} while (0)

#endif
