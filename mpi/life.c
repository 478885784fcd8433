// SPDX-License-Identifier: GPL-2.0
/*
 * The calls that bound the library's work (lwmpi.h): MPI_Init gives the
 * caller's world rank, MPI_Comm_free forgets a communicator before its
 * handle can be reused, and MPI_Abort, which does not return, is
 * recorded before it runs and every buffer written out, so that a rank
 * that aborts keeps its records.
 */
#include "lwmpi.h"

MW_API int MPI_Init(int *argc, char ***argv)
{
	struct mw_call c;
	int ret;

	if (!MW_BEGIN(c, Init))
		return PMPI_Init(argc, argv);
	MW_CALL(c, ret, PMPI_Init(argc, argv));
	if (ret == MPI_SUCCESS)
		mw_set_rank();
	mw_end(&c);
	return ret;
}

MW_API int MPI_Init_thread(int *argc, char ***argv, int required,
			   int *provided)
{
	struct mw_call c;
	int ret;

	if (!MW_BEGIN(c, Init_thread))
		return PMPI_Init_thread(argc, argv, required, provided);
	MW_CALL(c, ret, PMPI_Init_thread(argc, argv, required, provided));
	if (ret == MPI_SUCCESS)
		mw_set_rank();
	mw_end(&c);
	return ret;
}

MW_API int MPI_Comm_free(MPI_Comm *comm)
{
	struct mw_call c;
	MPI_Comm was = *comm;
	int ret;

	if (!MW_BEGIN(c, Comm_free)) {
		mw_comm_forget(was);
		return PMPI_Comm_free(comm);
	}
	c.m.comm = mw_comm_id(was);
	mw_comm_forget(was);
	MW_CALL(c, ret, PMPI_Comm_free(comm));
	mw_end(&c);
	return ret;
}

void mw_abort(MPI_Comm comm)
{
	struct mw_call c;

	if (MW_BEGIN(c, Abort)) {
		TR_REGS(c.regs);
		c.t0 = c.t1 = mw_api->clock_start();
		c.m.comm = mw_comm_id(comm);
		mw_end(&c);
		mw_api->flush();
	}
}

MW_API int MPI_Abort(MPI_Comm comm, int code)
{
	mw_abort(comm);
	return PMPI_Abort(comm, code);
}
