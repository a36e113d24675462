! rep_wild_f08.f90 -- Fortran (use mpi_f08) wildcard receives for `mpilens report`
! (tests/cases/report_fortran_wild.sh).  Every rank but 0 sends rank 0 three
! messages of its own tags and sizes; rank 0 takes them with MPI_Recv from
! MPI_ANY_SOURCE with MPI_ANY_TAG (with a status, or MPI_STATUS_IGNORE).  Open MPI's Fortran bindings call PMPI_Recv
! directly, so the runtime sees only the Fortran call: the actual source and
! tag must come from the Fortran status.  Then a ring with wildcard sources.
! Rank 0 prints "EXPECT messages=<n> bytes=<b>".
program rep_wild_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, i, k, n, left, right
  type(MPI_Status) :: status
  integer :: buf(64)
  integer(kind=8) :: msgs, bytes

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = rank
  msgs = 0
  bytes = 0
  if (rank == 0) then
     do i = 1, 3 * (nprocs - 1)
        if (mod(i, 3) == 2) then
           call MPI_Recv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
           cycle
        end if
        call MPI_Recv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
        call MPI_Get_count(status, MPI_INTEGER, n, ierr)
        if (.not. ((n == status%MPI_SOURCE + 1 .and. status%MPI_TAG == 100 + status%MPI_SOURCE) .or. &
                   (n == 2 * status%MPI_SOURCE .and. status%MPI_TAG == 200 + status%MPI_SOURCE) .or. (n == 3 .and. status%MPI_TAG == 300))) then
           print *, 'rep_wild: bad status', status%MPI_SOURCE, status%MPI_TAG, n
           call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
        end if
     end do
  else
     call MPI_Send(buf, rank + 1, MPI_INTEGER, 0, 100 + rank, MPI_COMM_WORLD, ierr)
     call MPI_Send(buf, 2 * rank, MPI_INTEGER, 0, 200 + rank, MPI_COMM_WORLD, ierr)
     call MPI_Send(buf, 3, MPI_INTEGER, 0, 300, MPI_COMM_WORLD, ierr)
     msgs = 3
     bytes = 4 * (rank + 1 + 2 * rank + 3)
  end if
  ! a ring: each rank receives from any source, any tag
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  do k = 1, 3
     if (rank == 0) then
        call MPI_Send(buf, k, MPI_INTEGER, right, k, MPI_COMM_WORLD, ierr)
        call MPI_Recv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
     else
        call MPI_Recv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
        call MPI_Send(buf, k, MPI_INTEGER, right, k, MPI_COMM_WORLD, ierr)
     end if
     msgs = msgs + 1
     bytes = bytes + 4 * k
  end do
  call MPI_Allreduce(MPI_IN_PLACE, msgs, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, bytes, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0)', 'EXPECT messages=', msgs, ' bytes=', bytes
  call MPI_Finalize(ierr)
end program rep_wild_f08
