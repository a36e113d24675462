! rep_vbytes.f90 -- the Fortran side of rep_vbytes.c (tests/cases/
! report_vbytes.sh), 4 ranks, use mpi: rank r calls MPI_Gatherv (root 0) of
! r+1 integers, MPI_Scatterv (root 1) of r+1 integers to rank r,
! MPI_Allgatherv of r+1 integers, MPI_Alltoallv of r+1 integers to every
! rank, MPI_Alltoallv in place of 2 integers per rank, MPI_Alltoallw of r+1
! double precision to every rank, MPI_Reduce_scatter of i+1 double precision
! to rank i.  Each rank works out what its buffers send and receive per
! routine from its own arguments, and rank 0 prints them:
!   expect RANK ROUTINE SENT RECEIVED
program rep_vbytes
  use mpi
  implicit none
  integer, parameter :: n = 4, nr = 7
  integer :: ierr, rank, nprocs, i, me, k
  integer :: ib(256), ir(256), cnt(n), dsp(n), mine(n), two(n), d2(n), dt(n), wd(n)
  double precision :: db(256), dr(256)
  integer(kind=8) :: ex(2, nr), all(2, nr, n)
  character(len=23) :: names(nr)
  names = [character(len=23) :: 'MPI_Gatherv', 'MPI_Scatterv', 'MPI_Allgatherv', 'MPI_Alltoallv', &
           'MPI_Alltoallv(in_place)', 'MPI_Alltoallw', 'MPI_Reduce_scatter']
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= n) then
    if (rank == 0) print '(A)', 'SKIP: rep_vbytes wants 4 ranks'
    call MPI_Finalize(ierr)
    stop
  end if
  me = rank + 1
  ib = rank
  db = rank
  do i = 1, n
    cnt(i) = i
    dsp(i) = 16 * (i - 1)
    mine(i) = me
    two(i) = 2
    d2(i) = 2 * (i - 1)
    dt(i) = MPI_DOUBLE_PRECISION
    wd(i) = 16 * 8 * (i - 1)
  end do
  ex = 0
  call MPI_Gatherv(ib, me, MPI_INTEGER, ir, cnt, dsp, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  ex(1, 1) = me * 4
  if (rank == 0) ex(2, 1) = sum(cnt) * 4
  call MPI_Scatterv(ib, cnt, dsp, MPI_INTEGER, ir, me, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  if (rank == 1) ex(1, 2) = sum(cnt) * 4
  ex(2, 2) = me * 4
  call MPI_Allgatherv(ib, me, MPI_INTEGER, ir, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ex(:, 3) = [me * 4, sum(cnt) * 4]
  call MPI_Alltoallv(ib, mine, dsp, MPI_INTEGER, ir, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ex(:, 4) = [sum(mine) * 4, sum(cnt) * 4]
  call MPI_Alltoallv(MPI_IN_PLACE, two, d2, MPI_INTEGER, ir, two, d2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ex(:, 5) = [sum(two) * 4, sum(two) * 4]
  call MPI_Alltoallw(db, mine, wd, dt, dr, cnt, wd, dt, MPI_COMM_WORLD, ierr)
  ex(:, 6) = [sum(mine) * 8, sum(cnt) * 8]
  call MPI_Reduce_scatter(db, dr, cnt, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  ex(:, 7) = [sum(cnt) * 8, me * 8]
  call MPI_Gather(ex, 2 * nr, MPI_INTEGER8, all, 2 * nr, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, n
      do k = 1, nr
        print '(A,I0,A,A,A,I0,A,I0)', 'expect ', i - 1, ' ', trim(names(k)), ' ', all(1, k, i), ' ', all(2, k, i)
      end do
    end do
    print '(A)', 'rep_vbytes: done'
  end if
  call MPI_Finalize(ierr)
end program rep_vbytes
