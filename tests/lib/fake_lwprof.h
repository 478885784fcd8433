/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the two halves of the fake module (tests/lib/fake_*.c). */
#ifndef FAKE_LWPROF_H
#define FAKE_LWPROF_H

#include <stddef.h>

#include "lwprof.h"

extern int fake_pid;	/* the attached process (1 for the machine) */

/* RING_SETUP, SAMPLE_START, SAMPLE_STOP: 0 or a negative errno. */
int fake_ring_ioctl(int fd, unsigned long req, void *arg);

/*
 * The features the fake reports besides MSTATE and SAMPLE: the bits of
 * $FAKE_LWPROF_FEATURES (a number; none by default).
 */
__u64 fake_features(void);

/* Append a line to $FAKE_LWPROF_LOG (what the module was asked). */
void fake_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * fake_ring.c: publish a record on ring c (waiting for room); the number
 * of rings; wait until the reader has read everything published.
 */
void fake_emit(unsigned int c, const void *rec, size_t size);
unsigned int fake_rings(void);
/* A TASK record on ring c. */
void fake_task(unsigned int c, unsigned int pid, unsigned int tid,
	       unsigned int ppid, __u32 event, const char *comm);
void fake_sync(void);

/* fake_maps.c: the $FAKE_LWPROF_MMAPS script's records; the producer's end. */
void fake_maps(void);
void fake_maps_done(void);

#endif
