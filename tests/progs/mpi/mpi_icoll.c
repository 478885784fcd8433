// SPDX-License-Identifier: GPL-2.0
/*
 * Nonblocking collectives (host/mpi_icoll), on every rank: an
 * MPI_Ibarrier entered late by the higher ranks and completed by
 * MPI_Wait after some work; an MPI_Iallreduce and an MPI_Ibcast completed
 * together by MPI_Waitall; an MPI_Ialltoall completed by MPI_Waitany; an
 * MPI_Ireduce completed by an MPI_Test loop.  Each rank times its
 * entries into the collectives and its waits; rank 0 gathers the times
 * and prints each rank's Wait at Barrier (the MPI_Wait's, from its entry
 * to the last rank's MPI_Ibarrier, at most its length) and Wait at NxN
 * (the MPI_Waitall's, to the last MPI_Iallreduce, and the MPI_Waitany's,
 * to the last MPI_Ialltoall), and per function
 * the calls of every rank: "truth rank R barrier_wait_ns W nxn_wait_ns
 * N", "truth func NAME CALLS 0 0 0 0", "truth requests KIND N".
 */
#include <string.h>

#include "mpitest.h"

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1: no array to gcc */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define MS	1000000ULL

enum { BAR_IN, BAR_W0, BAR_W1, NXN_IN, NXN_W0, NXN_W1, A2A_IN, A2A_W0,
       A2A_W1, NT };

static uint64_t clamp_wait(uint64_t last, uint64_t w0, uint64_t w1)
{
	uint64_t w = last > w0 ? last - w0 : 0;

	return w > w1 - w0 ? w1 - w0 : w;
}

int main(int argc, char **argv)
{
	int rank, np, i, x, sum, idx, flag, in[64], out[64];
	uint64_t t[NT], *all = NULL, lastb = 0, lastn = 0, lasta = 0;
	long tests = 0, tot = 0;
	char buf[100] = { 0 };
	MPI_Request rq[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (np > 64)
		MPI_Abort(MPI_COMM_WORLD, 2);
	/* Ibarrier: rank r enters 15 ms after rank r - 1, works 5 ms */
	mt_sleep_ns(rank * 15 * MS);
	t[BAR_IN] = mt_now();
	MT_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]));
	mt_sleep_ns(5 * MS);
	t[BAR_W0] = mt_now();
	MT_CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	t[BAR_W1] = mt_now();
	/* Iallreduce and Ibcast: the last rank first, rank 0 last */
	mt_sleep_ns((np - 1 - rank) * 10 * MS);
	x = rank + 1;
	t[NXN_IN] = mt_now();
	MT_CHECK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
	MT_CHECK(MPI_Ibcast(buf, sizeof(buf), MPI_BYTE, 0, MPI_COMM_WORLD, &rq[1]));
	t[NXN_W0] = mt_now();
	MT_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	t[NXN_W1] = mt_now();
	if (sum != np * (np + 1) / 2)
		MPI_Abort(MPI_COMM_WORLD, 4);
	/* Ialltoall by MPI_Waitany: rank r enters 3 ms after rank r - 1 */
	for (i = 0; i < np; i++)
		out[i] = rank * 100 + i;
	mt_sleep_ns(rank * 3 * MS);
	t[A2A_IN] = mt_now();
	MT_CHECK(MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD, &rq[0]));
	t[A2A_W0] = mt_now();
	MT_CHECK(MPI_Waitany(1, rq, &idx, MPI_STATUS_IGNORE));
	t[A2A_W1] = mt_now();
	for (i = 0; i < np; i++)
		if (in[i] != i * 100 + rank)
			MPI_Abort(MPI_COMM_WORLD, 5);
	/* Ireduce by an MPI_Test loop */
	MT_CHECK(MPI_Ireduce(&x, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq[0]));
	for (flag = 0; !flag; tests++)
		MT_CHECK(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE));
	if (!rank)
		all = malloc(sizeof(*all) * NT * np);
	MT_CHECK(MPI_Gather(t, NT, MPI_UINT64_T, all, NT, MPI_UINT64_T, 0, MPI_COMM_WORLD));
	MT_CHECK(MPI_Reduce(&tests, &tot, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
	if (rank) {
		MPI_Finalize();
		return 0;
	}
	for (i = 0; i < np; i++) {
		if (all[i * NT + BAR_IN] > lastb)
			lastb = all[i * NT + BAR_IN];
		if (all[i * NT + NXN_IN] > lastn)
			lastn = all[i * NT + NXN_IN];
		if (all[i * NT + A2A_IN] > lasta)
			lasta = all[i * NT + A2A_IN];
	}
	for (i = 0; i < np; i++)
		printf("truth rank %d barrier_wait_ns %llu nxn_wait_ns %llu\n", i,
		       (unsigned long long)clamp_wait(lastb, all[i * NT + BAR_W0],
						      all[i * NT + BAR_W1]),
		       (unsigned long long)(clamp_wait(lastn, all[i * NT + NXN_W0],
						       all[i * NT + NXN_W1]) +
				clamp_wait(lasta, all[i * NT + A2A_W0],
					   all[i * NT + A2A_W1])));
	printf("truth func MPI_Ibarrier %d 0 0 0 0\n", np);
	printf("truth func MPI_Iallreduce %d 0 0 0 0\n", np);
	printf("truth func MPI_Ibcast %d 0 0 0 0\n", np);
	printf("truth func MPI_Ialltoall %d 0 0 0 0\n", np);
	printf("truth func MPI_Ireduce %d 0 0 0 0\n", np);
	printf("truth func MPI_Wait %d 0 0 0 0\n", np);
	printf("truth func MPI_Waitall %d 0 0 0 0\n", np);
	printf("truth func MPI_Test %ld 0 0 0 0\n", tot);
	printf("truth func MPI_Waitany %d 0 0 0 0\n", np);
	/* the requests each function completed, by the call that made them */
	printf("truth requests MPI_Wait MPI_Ibarrier\n");
	printf("truth requests MPI_Waitall MPI_Iallreduce MPI_Ibcast\n");
	printf("truth requests MPI_Test MPI_Ireduce\n");
	printf("truth requests MPI_Waitany MPI_Ialltoall\n");
	fflush(stdout);
	free(all);
	MPI_Finalize();
	return 0;
}
