// SPDX-License-Identifier: GPL-2.0
/*
 * A rank that aborts (host/mpi_cases): every rank makes NCALLS
 * MPI_Barrier calls, then rank 1 calls MPI_Abort while the others wait
 * in an MPI_Recv from it that never completes: the launcher ends them.
 */
#include "mpitest.h"

#define NCALLS 5

int main(int argc, char **argv)
{
	int rank, buf, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 0; i < NCALLS; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		mt_sleep_ns(500000000);	/* the others' records written out */
		MPI_Abort(MPI_COMM_WORLD, 7);
	}
	MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
