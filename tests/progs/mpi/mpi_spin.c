// SPDX-License-Identifier: GPL-2.0
/*
 * More ranks than CPUs waiting in MPI (guest/mpi_mstate): rank 0 sleeps
 * DELAY then sends each other rank one message; the others wait for it
 * in MPI_Recv, which the MPI libraries do by polling, so the waiting
 * ranks share the CPUs left and each is now and then runnable but not
 * running.  Each waiting rank prints the length of its MPI_Recv as it
 * timed it: "truth recv RANK NS".
 */
#include "mpitest.h"

#define DELAY	400000000ULL

int main(int argc, char **argv)
{
	int rank, size, r, v = 1;
	uint64_t t0, t1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank) {
		mt_sleep_ns(DELAY);
		for (r = 1; r < size; r++)
			MT_CHECK(MPI_Send(&v, 1, MPI_INT, r, 5, MPI_COMM_WORLD));
	} else {
		t0 = mt_now();
		MT_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD,
				  MPI_STATUS_IGNORE));
		t1 = mt_now();
		printf("truth recv %d %llu\n", rank, (unsigned long long)(t1 - t0));
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
