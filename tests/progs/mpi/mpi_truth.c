// SPDX-License-Identifier: GPL-2.0
/*
 * An MPI program that knows what it did (host/mpi_truth): rank 0 prints
 * "truth" lines the test compares with lwprof print.
 *
 * 1. Late senders: each even rank sends K messages to the odd rank after
 *    it, sleeping longer before each; the receiver posts its MPI_Recv at
 *    once.
 * 2. Counts and bytes: MPI_Isend (freed at once) to the next rank,
 *    MPI_Recv from the one before; MPI_Isend/MPI_Irecv completed by one
 *    MPI_Waitall; each rank but 0 sends rank 0 a message of 16 x rank
 *    bytes that rank 0 receives with MPI_ANY_SOURCE; collectives.
 * 3. A communicator of its own: MPI_Comm_split by rank parity; in each of
 *    at least two ranks, its rank 1 posts an MPI_Irecv from MPI_ANY_SOURCE
 *    and frees the communicator (the receive stays pending, as MPI
 *    allows), its rank 0 sends it 24 bytes (with four ranks: world rank 0
 *    to 2, 1 to 3), and the MPI_Wait after completes the receive.
 * 4. Wait at Barrier: rank r sleeps r x 20 ms before a barrier.
 *
 * Every send's start and every blocking receive's (or the wait's) start
 * and end are timed, just before and after the call, and gathered to
 * rank 0 at the end (a collective: no message of its own to match).  A
 * message's Late Sender is its send's start less its receive's, at least
 * 0 and at most the receive's length (a wait of several messages waited
 * for its latest); a rank's Wait at Barrier is, per barrier, the last
 * rank's entry less its own, and so is its Wait at NxN, per
 * MPI_Allreduce (before each of which the ranks sleep unequally).
 */
#include <string.h>

#include "mpitest.h"

#define K		4	/* late messages per pair */
#define NSEND		3	/* ring messages per rank */
#define NINT		100	/* ints each */
#define NNB		2	/* MPI_Isend and MPI_Irecv per rank */
#define NBBYTES		1000	/* bytes each */
#define NBAR		6	/* barriers */
#define MAXR		64

/* what a rank timed */
struct times {
	uint64_t pair_s[K], pair_r[K], pair_e[K];
	uint64_t ring_s[NSEND], ring_r[NSEND], ring_e[NSEND];
	uint64_t nb_s[NNB], wait_r, wait_e;
	uint64_t any_s, any_r[MAXR], any_e[MAXR];
	int any_src[MAXR];
	uint64_t sub_s, sub_r, sub_e;	/* the split communicator's message */
	int sub_peer;			/* its sender's world rank, or -1 */
	uint64_t bar[NBAR];
	uint64_t ar[4];			/* each MPI_Allreduce's entry */
};

static int rank, size, nbar;
static struct times me;

static void barrier(void)
{
	me.bar[nbar++] = mt_now();
	MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

static void late_pairs(void)
{
	int buf[8] = { 0 }, i;

	for (i = 0; i < K; i++) {
		if (rank % 2 == 0 && rank + 1 < size) {
			mt_sleep_ns((uint64_t)(i + 1) * 40000000ULL +
				    rank * 1000000ULL);
			me.pair_s[i] = mt_now();
			MT_CHECK(MPI_Send(buf, 8, MPI_INT, rank + 1, 10,
					  MPI_COMM_WORLD));
		} else if (rank % 2) {
			me.pair_r[i] = mt_now();
			MT_CHECK(MPI_Recv(buf, 8, MPI_INT, rank - 1, 10,
					  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			me.pair_e[i] = mt_now();
		}
	}
}

static void counts(void)
{
	int out[NINT] = { 0 }, in[NINT], next = (rank + 1) % size;
	int prev = (rank + size - 1) % size, i, v = rank, sum;
	char nbout[NNB][NBBYTES], nbin[NNB][NBBYTES], any[MAXR * 16];
	MPI_Request rq[2 * NNB], one;
	MPI_Status st;

	memset(nbout, 1, sizeof(nbout));
	barrier();
	for (i = 0; i < NSEND; i++) {
		me.ring_s[i] = mt_now();
		MT_CHECK(MPI_Isend(out, NINT, MPI_INT, next, 1, MPI_COMM_WORLD,
				   &one));
		MT_CHECK(MPI_Request_free(&one));
	}
	mt_sleep_ns(20000000);
	for (i = 0; i < NSEND; i++) {
		me.ring_r[i] = mt_now();
		MT_CHECK(MPI_Recv(in, NINT, MPI_INT, prev, 1, MPI_COMM_WORLD,
				  MPI_STATUS_IGNORE));
		me.ring_e[i] = mt_now();
	}
	barrier();
	for (i = 0; i < NNB; i++) {
		me.nb_s[i] = mt_now();
		MT_CHECK(MPI_Isend(nbout[i], NBBYTES, MPI_BYTE, next, 2,
				   MPI_COMM_WORLD, &rq[i]));
	}
	mt_sleep_ns(20000000);
	for (i = 0; i < NNB; i++)
		MT_CHECK(MPI_Irecv(nbin[i], NBBYTES, MPI_BYTE, prev, 2,
				   MPI_COMM_WORLD, &rq[NNB + i]));
	me.wait_r = mt_now();
	/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1: no array to gcc */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
	MT_CHECK(MPI_Waitall(2 * NNB, rq, MPI_STATUSES_IGNORE));
#pragma GCC diagnostic pop
	me.wait_e = mt_now();
	barrier();
	if (rank) {
		memset(any, rank, 16 * rank);
		me.any_s = mt_now();
		MT_CHECK(MPI_Send(any, 16 * rank, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
	} else {
		mt_sleep_ns(20000000);
		for (i = 1; i < size; i++) {
			me.any_r[i] = mt_now();
			MT_CHECK(MPI_Recv(any, sizeof(any), MPI_BYTE,
					  MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st));
			me.any_e[i] = mt_now();
			me.any_src[i] = st.MPI_SOURCE;
			if (st.MPI_SOURCE < 1 || any[0] != st.MPI_SOURCE)
				MPI_Abort(MPI_COMM_WORLD, 4);
		}
	}
	MT_CHECK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
	MT_CHECK(MPI_Bcast(&v, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
	for (i = 0; i < 4; i++) {
		mt_sleep_ns((uint64_t)((rank + i) % size) * 5000000ULL);
		me.ar[i] = mt_now();
		MT_CHECK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM,
				       MPI_COMM_WORLD));
	}
}

static void split(void)
{
	char buf[24] = { 0 };
	MPI_Request rq;
	MPI_Comm sub;
	int srank, ssize;

	me.sub_peer = -1;
	MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub));
	MT_CHECK(MPI_Comm_rank(sub, &srank));
	MT_CHECK(MPI_Comm_size(sub, &ssize));
	if (ssize >= 2 && srank == 0) {
		me.sub_s = mt_now();
		MT_CHECK(MPI_Send(buf, 24, MPI_BYTE, 1, 4, sub));
		MT_CHECK(MPI_Comm_free(&sub));
	} else if (ssize >= 2 && srank == 1) {
		MT_CHECK(MPI_Irecv(buf, 24, MPI_BYTE, MPI_ANY_SOURCE, 4, sub, &rq));
		MT_CHECK(MPI_Comm_free(&sub));
		mt_sleep_ns(20000000);
		me.sub_r = mt_now();
		MT_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		me.sub_e = mt_now();
		me.sub_peer = rank - 2;	/* sub rank 0: two below in the world */
	} else {
		MT_CHECK(MPI_Comm_free(&sub));
	}
}

/* the wait of a receive [r, e] for a send started at s */
static uint64_t late(uint64_t s, uint64_t r, uint64_t e)
{
	if (s <= r)
		return 0;
	return s - r < e - r ? s - r : e - r;
}

static void truth(const struct times *t)
{
	uint64_t ls, w, last, m;
	int r, i, j, prev;

	for (r = 0; r < size; r++) {
		prev = (r + size - 1) % size;
		ls = 0;
		for (i = 0; r % 2 && i < K; i++)
			ls += late(t[r - 1].pair_s[i], t[r].pair_r[i], t[r].pair_e[i]);
		for (i = 0; i < NSEND; i++)
			ls += late(t[prev].ring_s[i], t[r].ring_r[i], t[r].ring_e[i]);
		for (m = 0, i = 0; i < NNB; i++) {
			w = late(t[prev].nb_s[i], t[r].wait_r, t[r].wait_e);
			m = w > m ? w : m;
		}
		ls += m;
		for (i = 1; !r && i < size; i++)
			ls += late(t[t[0].any_src[i]].any_s, t[0].any_r[i],
				   t[0].any_e[i]);
		if (t[r].sub_peer >= 0)
			ls += late(t[t[r].sub_peer].sub_s, t[r].sub_r, t[r].sub_e);
		w = 0;
		for (i = 0; i < nbar; i++) {
			for (last = 0, j = 0; j < size; j++)
				last = t[j].bar[i] > last ? t[j].bar[i] : last;
			w += last - t[r].bar[i];
		}
		for (m = 0, i = 0; i < 4; i++) {
			for (last = 0, j = 0; j < size; j++)
				last = t[j].ar[i] > last ? t[j].ar[i] : last;
			m += last - t[r].ar[i];
		}
		printf("truth rank %d late_sender_ns %llu barrier_wait_ns %llu nxn_wait_ns %llu\n",
		       r, (unsigned long long)ls, (unsigned long long)w,
		       (unsigned long long)m);
	}
}

int main(int argc, char **argv)
{
	struct times *all = NULL;
	int r, pairs, sub;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > MAXR)
		MPI_Abort(MPI_COMM_WORLD, 2);
	barrier();
	late_pairs();
	counts();
	split();
	mt_sleep_ns((uint64_t)rank * 20000000ULL);
	barrier();
	if (!rank)
		all = calloc(size, sizeof(*all));
	MT_CHECK(MPI_Gather(&me, sizeof(me), MPI_BYTE, all, sizeof(me),
			    MPI_BYTE, 0, MPI_COMM_WORLD));
	if (!rank) {
		truth(all);
		pairs = size / 2;
		sub = size >= 4 ? 2 : size == 3;	/* split messages */
		/* per function over all ranks: calls sends bytes recvs bytes */
		printf("truth func MPI_Send %d %d %d 0 0\n",
		       pairs * K + size - 1 + sub, pairs * K + size - 1 + sub,
		       pairs * K * 32 + 16 * (size - 1) * size / 2 + 24 * sub);
		printf("truth func MPI_Recv %d 0 0 %d %d\n",
		       pairs * K + size * NSEND + size - 1,
		       pairs * K + size * NSEND + size - 1,
		       pairs * K * 32 + size * NSEND * NINT * 4 +
		       16 * (size - 1) * size / 2);
		if (sub)	/* a function with no call has no row */
			printf("truth func MPI_Wait %d 0 0 %d %d\n", sub, sub, 24 * sub);
		printf("truth func MPI_Isend %d %d %d 0 0\n",
		       size * (NSEND + NNB), size * (NSEND + NNB),
		       size * (NSEND * NINT * 4 + NNB * NBBYTES));
		printf("truth func MPI_Irecv %d 0 0 0 0\n", size * NNB + sub);
		printf("truth func MPI_Waitall %d 0 0 %d %d\n",
		       size, size * NNB, size * NNB * NBBYTES);
		printf("truth func MPI_Barrier %d 0 0 0 0\n", size * nbar);
		printf("truth func MPI_Bcast %d 0 0 0 0\n", size * 2);
		printf("truth func MPI_Allreduce %d 0 0 0 0\n", size * 4);
		printf("truth any_source");
		for (r = 1; r < size; r++)
			printf(" %d:%d", r, 16 * r);
		printf("\n");
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
