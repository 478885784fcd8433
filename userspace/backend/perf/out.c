// SPDX-License-Identifier: GPL-2.0
/*
 * The perf source's own rings (perf.h): lwprof records that the
 * converter writes and the drain (collect/drain.c) writes out, the protocol of
 * backend.h's struct rec_ring.  A record that does not fit is dropped and
 * counted; the next one that fits follows a LWPROF_REC_LOST record, as the
 * module's rings do.  The converter thread, whose reads of perf's rings
 * are what drains them, waits for room first (PERF_OUT_WAITS ms at most);
 * the last pass, in the loop's own thread, cannot.  A record is built in
 * place where the ring has room for the largest it can be (pout_room());
 * elsewhere, and then copied in, only at the ring's end or when it is full.
 */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

#define PERF_OUT_WAITS	2000

/*
 * The ring's pages are made now, before the recording, as perf's and the
 * module's are, rather than one page fault at a time while the converter
 * first writes them.
 */
int pout_init(struct pout *r, __u64 bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	memset(r, 0, sizeof(*r));
	if (m == MAP_FAILED)
		return -ENOMEM;
	r->data = m;
	r->size = bytes;
	return 0;
}

void pout_free(struct pout *r)
{
	if (r->data)
		munmap(r->data, r->size);
	r->data = NULL;
}

/* Copy n bytes at position pos, wrapping at the end. */
static void copy_in(struct pout *r, __u64 pos, const void *src, __u32 n)
{
	__u64 off = pos & (r->size - 1), first = r->size - off;

	if (first >= n) {
		memcpy(r->data + off, src, n);
	} else {
		memcpy(r->data + off, src, first);
		memcpy(r->data, (const unsigned char *)src + first, n - first);
	}
}

void *pout_room(struct pout *r, __u32 max)
{
	/* Pairs with the drain's store-release of tail: bytes below are free. */
	__u64 tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	__u64 off = r->head & (r->size - 1);

	if (r->lost_pending || r->head + max - tail > r->size ||
	    r->size - off < max)
		return NULL;
	return r->data + off;
}

void pout_commit(struct pout *r, const void *rec)
{
	const struct lwprof_rec *h = rec;

	r->records++;
	/* The record's bytes before the head that covers them. */
	__atomic_store_n(&r->head, r->head + h->size, __ATOMIC_RELEASE);
}

bool pout_put(struct pout *r, const void *rec, __u32 cpu, __u64 time_ns)
{
	const struct lwprof_rec *h = rec;
	struct lwprof_rec_lost lost;
	/* Pairs with the drain's store-release of tail: bytes below are free. */
	__u64 tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	__u64 head = r->head, need = h->size;
	unsigned int spins;

	if (r->lost_pending)
		need += sizeof(lost);
	/* The converter thread may wait: the perf ring is the buffer. */
	for (spins = 0; r->wait && head + need - tail > r->size &&
	     spins < PERF_OUT_WAITS; spins++) {
		eventfd_write(r->kick_fd, 1);
		usleep(1000);
		tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	}
	if (head + need - tail > r->size) {
		r->lost++;
		r->lost_pending++;
		return false;
	}
	if (r->lost_pending) {
		memset(&lost, 0, sizeof(lost));
		lost.hdr.type = LWPROF_REC_LOST;
		lost.hdr.size = sizeof(lost);
		lost.time_ns = time_ns;
		lost.lost = r->lost_pending;
		lost.cpu = cpu;
		copy_in(r, head, &lost, sizeof(lost));
		head += sizeof(lost);
		r->lost_pending = 0;
		r->records++;
	}
	copy_in(r, head, rec, h->size);
	head += h->size;
	r->records++;
	/* The record's bytes before the head that covers them. */
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	return true;
}
