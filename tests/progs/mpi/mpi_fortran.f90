! SPDX-License-Identifier: GPL-2.0
! A Fortran MPI program that knows what it did (host/mpi_fortran): every
! rank but 0 sends rank 0 4 x rank integers, which rank 0 receives with
! MPI_ANY_SOURCE (a status asked for) and MPI_STATUS_IGNORE in turn; each
! rank posts an MPI_Irecv from the rank before it and an MPI_Isend of 256
! integers to the one after, completed by one MPI_Waitall; then
! MPI_Barrier, MPI_Bcast, MPI_Allreduce.  Rank 0 prints the truth lines:
! "truth func NAME CALLS SENDS BYTES_SENT RECEIVES BYTES_RECEIVED" over
! every rank, and the sources of its MPI_ANY_SOURCE receives.
program mpi_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, src, v, sum
  integer :: buf(256), big(256), got(256), req(2), st(MPI_STATUS_SIZE)
  integer :: sts(MPI_STATUS_SIZE, 2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = rank
  big = rank
  if (rank /= 0) then
    call MPI_Send(buf, 4 * rank, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
  else
    do i = 1, nprocs - 1
      if (mod(i, 2) == 1) then
        call MPI_Recv(got, 256, MPI_INTEGER, MPI_ANY_SOURCE, 7, &
                      MPI_COMM_WORLD, st, ierr)
      else
        call MPI_Recv(got, 256, MPI_INTEGER, MPI_ANY_SOURCE, 7, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      end if
    end do
  end if
  call MPI_Irecv(got, 256, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 8, &
                 MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(big, 256, MPI_INTEGER, mod(rank + 1, nprocs), 8, &
                 MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, sts, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  v = rank
  call MPI_Bcast(v, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(v, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    src = 16 * (nprocs - 1) * nprocs / 2
    print '(a,i0,a,i0,a,i0,a)', 'truth func MPI_Send ', nprocs - 1, ' ', &
      nprocs - 1, ' ', src, ' 0 0'
    print '(a,i0,a,i0,a,i0)', 'truth func MPI_Recv ', nprocs - 1, ' 0 0 ', &
      nprocs - 1, ' ', src
    print '(a,i0,a,i0,a,i0,a)', 'truth func MPI_Isend ', nprocs, ' ', &
      nprocs, ' ', 1024 * nprocs, ' 0 0'
    print '(a,i0,a)', 'truth func MPI_Irecv ', nprocs, ' 0 0 0 0'
    print '(a,i0,a,i0,a,i0)', 'truth func MPI_Waitall ', nprocs, ' 0 0 ', &
      nprocs, ' ', 1024 * nprocs
    print '(a,i0,a)', 'truth func MPI_Barrier ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Bcast ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Allreduce ', nprocs, ' 0 0 0 0'
  end if
  call MPI_Finalize(ierr)
end program mpi_fortran
