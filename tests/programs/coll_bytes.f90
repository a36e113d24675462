! coll_bytes.f90 -- Fortran collectives with a receive count and type of their
! own (use mpi): MPI_Gather, MPI_Allgather, MPI_Alltoall, MPI_Scatter and
! MPI_Igather + MPI_Wait, each once, on every rank.  The receive side differs
! from the send side (2 integers sent, received as 1 MPI_DOUBLE_PRECISION or
! 8 bytes per rank), so the bytes received can be told from the bytes sent.
program coll_bytes
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, req
  integer :: s(2), big(2*64)
  double precision :: r(64)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  s = rank
  big = rank
  call MPI_Gather(s, 2, MPI_INTEGER, r, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allgather(s, 2, MPI_INTEGER, r, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call MPI_Alltoall(big, 2, MPI_INTEGER, r, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call MPI_Scatter(big, 2, MPI_INTEGER, r, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Igather(s, 2, MPI_INTEGER, r, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) print '(A,I0,A)', 'coll_bytes: ', nprocs, ' ranks'
  call MPI_Finalize(ierr)
end program coll_bytes
