! ring_f08.f90 -- the ring of ring.f90 with the mpi_f08 module.
! Every rank makes exactly LAPS calls of MPI_Send and LAPS of MPI_Recv, at the
! lines marked "site:...".
program ring_f08
  use mpi_f08
  implicit none
  integer, parameter :: laps = 6
  integer :: rank, nprocs, right, left, lap, val, total
  type(MPI_Status) :: status

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  val = 0
  do lap = 1, laps
     if (rank == 0) then
        val = lap * 1000
        call MPI_Send(val, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD) ! site:send0
        call MPI_Recv(val, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status) ! site:recv0
     else
        call MPI_Recv(val, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status) ! site:recvN
        val = val + rank
        call MPI_Send(val, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD) ! site:sendN
     end if
  end do
  call MPI_Allreduce(val, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(A,I0,A,I0,A,I0)', 'ring_f08.f90: ', nprocs, ' ranks, last lap ', val, ', sum ', total
  call MPI_Finalize()
end program ring_f08
