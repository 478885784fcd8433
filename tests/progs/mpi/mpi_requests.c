// SPDX-License-Identifier: GPL-2.0
/*
 * Requests completed every way (host/mpi_requests), three ranks, between
 * ranks 0 and 1: receives posted with MPI_Irecv and completed by MPI_Waitany, by
 * MPI_Waitsome, by MPI_Test and MPI_Testall in loops; persistent sends
 * and receives (MPI_Send_init, MPI_Recv_init, MPI_Start, MPI_Startall,
 * MPI_Wait, MPI_Waitall, MPI_Request_free); MPI_Sendrecv; MPI_Probe then
 * MPI_Recv; and, with a third rank, MPI_Startall of persistent sends to
 * ranks 1 and 2 at once.  Rank 0 prints, per function, the calls the
 * ranks made (the polling loops count theirs), sends, bytes sent,
 * receives and bytes received: "truth func NAME CALLS SENDS SBYTES RECVS
 * RBYTES", and the messages rank 0 sent to each: "truth matrix 0 DEST
 * BYTES MESSAGES", and the messages of the run: "truth messages N".
 */
#include <string.h>

#include "mpitest.h"

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1: no array to gcc */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

enum { WAITSOME, TEST, TESTALL, NCOUNT };

int main(int argc, char **argv)
{
	char buf[8][64] = { { 0 } }, out[64] = { 0 };
	int rank, np, i, k, idx, done, outn, outi[4], flag, peer;
	long cnt[NCOUNT] = { 0 }, tot[NCOUNT];
	MPI_Request rq[4], ps[2];
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (np != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	peer = 1 - rank;
	if (rank > 1) {
		memset(tot, 0, sizeof(tot));
		goto startall;
	}
	/* Waitany: three receives of 40 bytes */
	if (rank) {
		for (i = 0; i < 3; i++)
			MT_CHECK(MPI_Irecv(buf[i], 64, MPI_BYTE, 0, 20, MPI_COMM_WORLD, &rq[i]));
		for (i = 0; i < 3; i++)
			MT_CHECK(MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE));
	} else {
		for (i = 0; i < 3; i++)
			MT_CHECK(MPI_Send(out, 40, MPI_BYTE, 1, 20, MPI_COMM_WORLD));
	}
	/* Waitsome: two of 50 */
	if (rank) {
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Irecv(buf[i], 64, MPI_BYTE, 0, 21, MPI_COMM_WORLD, &rq[i]));
		for (done = 0; done < 2; done += outn, cnt[WAITSOME]++)
			MT_CHECK(MPI_Waitsome(2, rq, &outn, outi, MPI_STATUSES_IGNORE));
	} else {
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Send(out, 50, MPI_BYTE, 1, 21, MPI_COMM_WORLD));
	}
	/* MPI_Test in a loop: one of 60 */
	if (rank) {
		MT_CHECK(MPI_Irecv(buf[0], 64, MPI_BYTE, 0, 22, MPI_COMM_WORLD, &rq[0]));
		for (flag = 0; !flag; cnt[TEST]++)
			MT_CHECK(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE));
	} else {
		mt_sleep_ns(2000000);
		MT_CHECK(MPI_Send(out, 60, MPI_BYTE, 1, 22, MPI_COMM_WORLD));
	}
	/* MPI_Testall in a loop: two of 10 */
	if (rank) {
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Irecv(buf[i], 64, MPI_BYTE, 0, 23, MPI_COMM_WORLD, &rq[i]));
		for (flag = 0; !flag; cnt[TESTALL]++)
			MT_CHECK(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
	} else {
		mt_sleep_ns(2000000);
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Send(out, 10, MPI_BYTE, 1, 23, MPI_COMM_WORLD));
	}
	/* persistent: three rounds of 16 bytes, each side Start then Wait */
	if (rank)
		MT_CHECK(MPI_Recv_init(buf[0], 64, MPI_BYTE, 0, 24, MPI_COMM_WORLD, &ps[0]));
	else
		MT_CHECK(MPI_Send_init(out, 16, MPI_BYTE, 1, 24, MPI_COMM_WORLD, &ps[0]));
	for (k = 0; k < 3; k++) {
		MT_CHECK(MPI_Start(&ps[0]));
		MT_CHECK(MPI_Wait(&ps[0], MPI_STATUS_IGNORE));
	}
	MT_CHECK(MPI_Request_free(&ps[0]));
	/* MPI_Sendrecv: 8 bytes each way */
	MT_CHECK(MPI_Sendrecv(out, 8, MPI_BYTE, peer, 25, buf[0], 64, MPI_BYTE,
			      peer, 25, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	/* MPI_Probe, then the MPI_Recv: 12 bytes */
	if (rank) {
		MT_CHECK(MPI_Probe(MPI_ANY_SOURCE, 26, MPI_COMM_WORLD, &st));
		MT_CHECK(MPI_Recv(buf[0], 64, MPI_BYTE, st.MPI_SOURCE, 26,
				  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	} else {
		MT_CHECK(MPI_Send(out, 12, MPI_BYTE, 1, 26, MPI_COMM_WORLD));
	}
	/* MPI_Startall of two persistent sends of 4, one MPI_Waitall each side */
	if (rank) {
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Irecv(buf[i], 64, MPI_BYTE, 0, 27, MPI_COMM_WORLD, &rq[i]));
		MT_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	} else {
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Send_init(out, 4, MPI_BYTE, 1, 27, MPI_COMM_WORLD, &ps[i]));
		MT_CHECK(MPI_Startall(2, ps));
		MT_CHECK(MPI_Waitall(2, ps, MPI_STATUSES_IGNORE));
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Request_free(&ps[i]));
	}
startall:
	/*
	 * MPI_Startall of sends to two peers, twice: 6 bytes to rank 1 and
	 * 7 to rank 2; they receive with MPI_Recv
	 */
	if (!rank) {
		MT_CHECK(MPI_Send_init(out, 6, MPI_BYTE, 1, 28, MPI_COMM_WORLD, &ps[0]));
		MT_CHECK(MPI_Send_init(out, 7, MPI_BYTE, 2, 28, MPI_COMM_WORLD, &ps[1]));
		for (k = 0; k < 2; k++) {
			MT_CHECK(MPI_Startall(2, ps));
			MT_CHECK(MPI_Waitall(2, ps, MPI_STATUSES_IGNORE));
		}
		for (i = 0; i < 2; i++)
			MT_CHECK(MPI_Request_free(&ps[i]));
	} else if (rank <= 2) {
		for (k = 0; k < 2; k++)
			MT_CHECK(MPI_Recv(buf[0], 64, MPI_BYTE, 0, 28, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE));
	}
	MT_CHECK(MPI_Reduce(cnt, tot, NCOUNT, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
	if (!rank) {
		printf("truth func MPI_Send 9 9 312 0 0\n");
		printf("truth func MPI_Irecv 10 0 0 0 0\n");
		printf("truth func MPI_Waitany 3 0 0 3 120\n");
		printf("truth func MPI_Waitsome %ld 0 0 2 100\n", tot[WAITSOME]);
		printf("truth func MPI_Test %ld 0 0 1 60\n", tot[TEST]);
		printf("truth func MPI_Testall %ld 0 0 2 20\n", tot[TESTALL]);
		printf("truth func MPI_Start 6 3 48 0 0\n");
		printf("truth func MPI_Wait 6 0 0 3 48\n");
		printf("truth func MPI_Sendrecv 2 2 16 2 16\n");
		printf("truth func MPI_Probe 1 0 0 0 0\n");
		printf("truth func MPI_Recv 5 0 0 5 38\n");
		printf("truth func MPI_Startall 3 6 34 0 0\n");
		printf("truth func MPI_Waitall 4 0 0 2 8\n");
		printf("truth func MPI_Request_free 6 0 0 0 0\n");
		printf("truth matrix 0 1 388 17\n");
		printf("truth matrix 0 2 14 2\n");
		printf("truth messages 20\n");
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
