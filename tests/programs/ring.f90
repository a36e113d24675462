! ring.f90 -- Fortran (use mpi) ring for the Fortran recording tests.
! Every rank makes exactly LAPS calls of MPI_Send and LAPS of MPI_Recv, at the
! lines marked "site:..." (the tests look those markers up).
program ring
  use mpi
  implicit none
  integer, parameter :: laps = 6
  integer :: ierr, rank, nprocs, right, left, lap, val, total
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  val = 0
  do lap = 1, laps
     if (rank == 0) then
        val = lap * 1000
        call MPI_Send(val, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr) ! site:send0
        call MPI_Recv(val, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr) ! site:recv0
     else
        call MPI_Recv(val, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr) ! site:recvN
        val = val + rank
        call MPI_Send(val, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr) ! site:sendN
     end if
  end do
  call MPI_Allreduce(val, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0,A,I0)', 'ring.f90: ', nprocs, ' ranks, last lap ', val, ', sum ', total
  call MPI_Finalize(ierr)
end program ring
