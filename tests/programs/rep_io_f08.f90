! rep_io_f08.f90 -- rep_io_f.f90 with the mpi_f08 module (file rep_io_f08.dat),
! tests/cases/report_io_fortran.sh.  Bytes per rank: written 4 (r + 1) + 24,
! read 8.  Prints "rep_io_f: done" on rank 0.
program rep_io_f08
  use mpi_f08
  implicit none
  integer :: r, n
  type(MPI_File) :: fh
  type(MPI_Status) :: st
  integer :: ib(16)
  double precision :: db(3)
  integer(kind=MPI_OFFSET_KIND) :: off
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, r)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  ib = 7
  db = 1.5d0
  call MPI_File_open(MPI_COMM_WORLD, 'rep_io_f08.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
  off = r * 128
  call MPI_File_write_at(fh, off, ib, r + 1, MPI_INTEGER, st)
  off = r * 128 + 64
  call MPI_File_write_at_all(fh, off, db, 3, MPI_DOUBLE_PRECISION, st)
  off = r * 128
  call MPI_File_read_at(fh, off, ib, 2, MPI_INTEGER, st)
  call MPI_File_close(fh)
  if (r == 0) print '(a)', 'rep_io_f: done'
  call MPI_Finalize()
end program
