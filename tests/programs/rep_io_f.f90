! rep_io_f.f90 -- MPI-IO from Fortran (mpi module), tests/cases/report_io_fortran.sh.
! Every rank opens rep_io_f.dat (in the current directory) on MPI_COMM_WORLD
! and writes r + 1 integers at its own offset (MPI_File_write_at), 3 doubles
! collectively (MPI_File_write_at_all), reads 2 integers back
! (MPI_File_read_at) and closes it.  Bytes per rank: written 4 (r + 1) + 24,
! read 8.  Prints "rep_io_f: done" on rank 0.
program rep_io_f
  use mpi
  implicit none
  integer :: r, n, ierr, fh, st(MPI_STATUS_SIZE)
  integer :: ib(16)
  double precision :: db(3)
  integer(kind=MPI_OFFSET_KIND) :: off
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  ib = 7
  db = 1.5d0
  call MPI_File_open(MPI_COMM_WORLD, 'rep_io_f.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  off = r * 128
  call MPI_File_write_at(fh, off, ib, r + 1, MPI_INTEGER, st, ierr)
  off = r * 128 + 64
  call MPI_File_write_at_all(fh, off, db, 3, MPI_DOUBLE_PRECISION, st, ierr)
  off = r * 128
  call MPI_File_read_at(fh, off, ib, 2, MPI_INTEGER, st, ierr)
  call MPI_File_close(fh, ierr)
  if (r == 0) print '(a)', 'rep_io_f: done'
  call MPI_Finalize(ierr)
end program
