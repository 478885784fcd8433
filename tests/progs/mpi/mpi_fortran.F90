! SPDX-License-Identifier: GPL-2.0
! A Fortran MPI program that knows what it did (host/mpi_fortran), built
! with the mpi module, and with mpi_f08 (-DMPI_F08, its handles derived
! types, and some calls without their optional ierror): every rank but 0
! sends rank 0 4 x rank integers, which rank 0 receives with
! MPI_ANY_SOURCE (a status asked for) and MPI_STATUS_IGNORE in turn; each
! rank posts an MPI_Irecv from the rank before it and an MPI_Isend of 256
! integers to the one after, completed by one MPI_Waitall; then
! MPI_Barrier, MPI_Bcast, MPI_Allreduce; a persistent send of 8 integers
! to the next rank (MPI_Send_init, MPI_Start, MPI_Waitall with an
! MPI_Irecv, MPI_Request_free); MPI_Comm_split and MPI_Comm_free;
! MPI_Ibarrier completed by MPI_Wait; MPI_Scan; a ring of 4 integers
! completed by MPI_Waitany twice; a ring of 2 integers, each received by
! MPI_Probe then MPI_Recv, its MPI_Isend by MPI_Wait.  Rank 0 prints the truth
! lines: "truth func NAME CALLS SENDS BYTES_SENT RECEIVES BYTES_RECEIVED"
! over every rank, and the sources of its MPI_ANY_SOURCE receives.
program mpi_fortran
#ifdef MPI_F08
  use mpi_f08
  implicit none
  type(MPI_Request) :: req(2), preq, breq
  type(MPI_Status) :: st, sts(2)
  type(MPI_Comm) :: sub
#else
  use mpi
  implicit none
  integer :: req(2), preq, breq
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
  integer :: sub
#endif
  integer :: ierr, rank, nprocs, i, src, v, sum, idx, two(2), tgot(2)
  integer :: buf(256), big(256), got(256), small(8), pgot(8)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = rank
  big = rank
  small = rank
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
#ifdef MPI_F08
  call MPI_Barrier(MPI_COMM_WORLD)
#else
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#endif
  v = rank
  call MPI_Bcast(v, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(v, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Send_init(small, 8, MPI_INTEGER, mod(rank + 1, nprocs), 9, &
                     MPI_COMM_WORLD, preq, ierr)
  call MPI_Irecv(pgot, 8, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 9, &
                 MPI_COMM_WORLD, req(1), ierr)
  call MPI_Start(preq, ierr)
  req(2) = preq
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Request_free(preq, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_free(sub, ierr)
  call MPI_Ibarrier(MPI_COMM_WORLD, breq, ierr)
#ifdef MPI_F08
  call MPI_Wait(breq, MPI_STATUS_IGNORE)
  call MPI_Scan(v, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
#else
  call MPI_Wait(breq, MPI_STATUS_IGNORE, ierr)
  call MPI_Scan(v, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
#endif
  call MPI_Irecv(pgot, 4, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 10, &
                 MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(small, 4, MPI_INTEGER, mod(rank + 1, nprocs), 10, &
                 MPI_COMM_WORLD, req(2), ierr)
  do i = 1, 2
    call MPI_Waitany(2, req, idx, st, ierr)
  end do
  two = rank
  call MPI_Isend(two, 2, MPI_INTEGER, mod(rank + 1, nprocs), 11, &
                 MPI_COMM_WORLD, breq, ierr)
  call MPI_Probe(mod(rank + nprocs - 1, nprocs), 11, MPI_COMM_WORLD, st, ierr)
  call MPI_Recv(tgot, 2, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 11, &
                MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(breq, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) then
    src = 16 * (nprocs - 1) * nprocs / 2
    print '(a,i0,a,i0,a,i0,a)', 'truth func MPI_Send ', nprocs - 1, ' ', &
      nprocs - 1, ' ', src, ' 0 0'
    print '(a,i0,a,i0,a,i0)', 'truth func MPI_Recv ', 2 * nprocs - 1, ' 0 0 ', &
      2 * nprocs - 1, ' ', src + 8 * nprocs
    print '(a,i0,a,i0,a,i0,a)', 'truth func MPI_Isend ', 3 * nprocs, ' ', &
      3 * nprocs, ' ', 1048 * nprocs, ' 0 0'
    print '(a,i0,a)', 'truth func MPI_Irecv ', 3 * nprocs, ' 0 0 0 0'
    print '(a,i0,a,i0,a,i0)', 'truth func MPI_Waitany ', 2 * nprocs, ' 0 0 ', &
      nprocs, ' ', 16 * nprocs
    print '(a,i0,a)', 'truth func MPI_Probe ', nprocs, ' 0 0 0 0'
    print '(a,i0,a,i0,a,i0)', 'truth func MPI_Waitall ', 2 * nprocs, ' 0 0 ', &
      2 * nprocs, ' ', 1056 * nprocs
    print '(a,i0,a)', 'truth func MPI_Barrier ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Bcast ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Allreduce ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Send_init ', nprocs, ' 0 0 0 0'
    print '(a,i0,a,i0,a,i0,a)', 'truth func MPI_Start ', nprocs, ' ', &
      nprocs, ' ', 32 * nprocs, ' 0 0'
    print '(a,i0,a)', 'truth func MPI_Request_free ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Comm_split ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Comm_free ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Ibarrier ', nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Wait ', 2 * nprocs, ' 0 0 0 0'
    print '(a,i0,a)', 'truth func MPI_Scan ', nprocs, ' 0 0 0 0'
  end if
  call MPI_Finalize(ierr)
end program mpi_fortran
