! rep_rsb.f90 -- MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block from
! Fortran (use mpi), tests/cases/report_fortran_rsb.sh: every rank reduces
! 3 doubles per member (sends 3 x 8 x size bytes, receives its 3 doubles),
! then 2 integers per member nonblocking (+ MPI_Wait).  Rank 0 prints
! "rep_rsb: N ranks".
program rep_rsb
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, req
  double precision :: ds(3*64), dr(3)
  integer :: is(2*64), ir(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  ds = 1.0d0
  is = rank
  call MPI_Reduce_scatter_block(ds, dr, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Ireduce_scatter_block(is, ir, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (dr(1) /= nprocs) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  if (rank == 0) print '(A,I0,A)', 'rep_rsb: ', nprocs, ' ranks'
  call MPI_Finalize(ierr)
end program rep_rsb
