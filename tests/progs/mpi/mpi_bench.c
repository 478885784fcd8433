// SPDX-License-Identifier: GPL-2.0
/*
 * What MPI tracing costs (scripts/bench-mpi): rank 0 prints its own
 * timings.
 *   mpi_bench pingpong N: N round trips of an 8-byte message between
 *   ranks 0 and 1 (MPI_Send, MPI_Recv): "pingpong N NS", the mean round
 *   trip.
 *   mpi_bench self N: N MPI_Sendrecv calls of 8 bytes with itself, on
 *   rank 0 alone: "self N NS CPU_NS", the mean call, in elapsed and in
 *   thread CPU time (the cost of a call, blind to other processes).
 *   mpi_bench halo N: every rank exchanges 8 KiB with its two neighbours
 *   on a ring (MPI_Irecv, MPI_Isend, MPI_Waitall) until the job has sent
 *   N messages, between steps of 20 us of computing: "halo MSGS NS", the
 *   slowest rank's time.
 */
#include <string.h>

#include "mpitest.h"

#define HALO_BYTES	8192
#define HALO_WORK_NS	20000

static void work(uint64_t ns)
{
	uint64_t t = mt_now();

	while (mt_now() - t < ns)
		;
}

int main(int argc, char **argv)
{
	static char sbuf[2][HALO_BYTES], rbuf[2][HALO_BYTES];
	long n = argc > 2 ? atol(argv[2]) : 100000, i, steps;
	int rank, size, peer[2];
	uint64_t t0, dt, worst;
	MPI_Request rq[4];
	MPI_Status sts[4];
	char b[8] = { 0 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || (strcmp(argv[1], "pingpong") && strcmp(argv[1], "halo") &&
			 strcmp(argv[1], "self"))) {
		if (!rank)
			fprintf(stderr, "usage: mpi_bench pingpong|halo|self [N]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (!strcmp(argv[1], "self")) {
		struct timespec c0, c1;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		t0 = mt_now();
		for (i = 0; i < n && !rank; i++)
			MPI_Sendrecv(b, 8, MPI_BYTE, 0, 0, b + 0, 8, MPI_BYTE, 0, 0,
				     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		dt = mt_now() - t0;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		if (!rank)
			printf("self %ld %.1f %.1f\n", n, (double)dt / n,
			       ((c1.tv_sec - c0.tv_sec) * 1e9 +
				(c1.tv_nsec - c0.tv_nsec)) / n);
	} else if (!strcmp(argv[1], "pingpong")) {
		t0 = mt_now();
		for (i = 0; i < n && rank < 2; i++) {
			if (!rank) {
				MPI_Send(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
		}
		dt = mt_now() - t0;
		if (!rank)
			printf("pingpong %ld %.1f\n", n, (double)dt / n);
	} else {
		peer[0] = (rank + size - 1) % size;
		peer[1] = (rank + 1) % size;
		steps = n / (2L * size);
		t0 = mt_now();
		for (i = 0; i < steps; i++) {
			MPI_Irecv(rbuf[0], HALO_BYTES, MPI_BYTE, peer[0], 1,
				  MPI_COMM_WORLD, &rq[0]);
			MPI_Irecv(rbuf[1], HALO_BYTES, MPI_BYTE, peer[1], 1,
				  MPI_COMM_WORLD, &rq[1]);
			MPI_Isend(sbuf[0], HALO_BYTES, MPI_BYTE, peer[0], 1,
				  MPI_COMM_WORLD, &rq[2]);
			MPI_Isend(sbuf[1], HALO_BYTES, MPI_BYTE, peer[1], 1,
				  MPI_COMM_WORLD, &rq[3]);
			MPI_Waitall(4, rq, sts);
			work(HALO_WORK_NS);
		}
		dt = mt_now() - t0;
		MPI_Reduce(&dt, &worst, 1, MPI_UINT64_T, MPI_MAX, 0,
			   MPI_COMM_WORLD);
		if (!rank)
			printf("halo %ld %llu\n", steps * 2L * size,
			       (unsigned long long)worst);
	}
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
