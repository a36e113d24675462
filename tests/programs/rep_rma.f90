! rep_rma.f90 -- the Fortran side of rep_rma.c (tests/cases/report_rma.sh),
! use mpi, any number of ranks from 2: the same calls with the same counts
! on a window made on a communicator in reverse rank order (MPI_Put of
! 5 + rank mod 3 double precision to the right neighbour, MPI_Get of 2 pairs
! of double precision from the left one, MPI_Accumulate of 4 to the right
! one in a fence epoch; MPI_Rput of 6, MPI_Fetch_and_op of one,
! MPI_Compare_and_swap of one INTEGER*8, MPI_Get_accumulate of 3 and
! MPI_Rget of 2 in a lock epoch on the left one), then 4 integers from rank
! 0 to rank 1.  Rank 0 prints
!   expect RANK ROUTINE TARGET_WORLD_RANK ORIGIN_BYTES
program rep_rma
  use mpi
  implicit none
  integer, parameter :: nr = 8
  integer :: ierr, rank, nprocs, me, rev, win, pair, right, left, np, k, i
  integer :: rq(2), msg(4)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, d0, d16, d32, d40, d50, d52, d56, d60
  double precision :: base(64), src(8), dst(8), res(8)
  integer(kind=8) :: lone, lcmp, lres
  integer(kind=8) :: ex(2, nr)
  integer(kind=8), allocatable :: all(:, :, :)
  character(len=20) :: names(nr)
  names = [character(len=20) :: 'MPI_Put', 'MPI_Get', 'MPI_Accumulate', 'MPI_Rput', 'MPI_Fetch_and_op', &
           'MPI_Compare_and_swap', 'MPI_Get_accumulate', 'MPI_Rget']
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, rev, ierr)
  call MPI_Comm_rank(rev, me, ierr)
  base = 0
  src = [1, 2, 3, 4, 5, 6, 7, 8]
  lone = 1
  lcmp = 0
  wsize = 64 * 8
  d0 = 0; d16 = 16; d32 = 32; d40 = 40; d50 = 50; d52 = 52; d56 = 56; d60 = 60
  call MPI_Win_create(base, wsize, 8, MPI_INFO_NULL, rev, win, ierr)
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pair, ierr)
  call MPI_Type_commit(pair, ierr)
  right = mod(me + 1, nprocs)
  left = mod(me + nprocs - 1, nprocs)
  np = 5 + mod(rank, 3)

  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(src, np, MPI_DOUBLE_PRECISION, right, d0, np, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Get(dst, 2, pair, left, d16, 4, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Accumulate(src, 4, MPI_DOUBLE_PRECISION, right, d32, 4, MPI_DOUBLE_PRECISION, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)

  call MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win, ierr)
  call MPI_Rput(src, 6, MPI_DOUBLE_PRECISION, left, d40, 6, MPI_DOUBLE_PRECISION, win, rq(1), ierr)
  call MPI_Fetch_and_op(src, res(5), MPI_DOUBLE_PRECISION, left, d50, MPI_SUM, win, ierr)
  call MPI_Compare_and_swap(lone, lcmp, lres, MPI_INTEGER8, left, d52, win, ierr)
  call MPI_Get_accumulate(src, 3, MPI_DOUBLE_PRECISION, res, 3, MPI_DOUBLE_PRECISION, left, d56, 3, &
                          MPI_DOUBLE_PRECISION, MPI_SUM, win, ierr)
  call MPI_Rget(dst, 2, MPI_DOUBLE_PRECISION, left, d60, 2, MPI_DOUBLE_PRECISION, win, rq(2), ierr)
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
  call MPI_Win_unlock(left, win, ierr)

  ex(2, :) = [int(np * 8, 8), 32_8, 32_8, 48_8, 8_8, 8_8, 24_8, 16_8]
  do k = 1, nr
    if (k == 1 .or. k == 3) then
      ex(1, k) = nprocs - 1 - right
    else
      ex(1, k) = nprocs - 1 - left
    end if
  end do

  msg = [1, 2, 3, 4]
  if (rank == 0) call MPI_Send(msg, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
  if (rank == 1) call MPI_Recv(msg, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)

  allocate(all(2, nr, nprocs))
  call MPI_Gather(ex, 2 * nr, MPI_INTEGER8, all, 2 * nr, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, nprocs
      do k = 1, nr
        print '(A,I0,A,A,A,I0,A,I0)', 'expect ', i - 1, ' ', trim(names(k)), ' ', all(1, k, i), ' ', all(2, k, i)
      end do
    end do
    print '(A)', 'rep_rma: done'
  end if
  call MPI_Type_free(pair, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Comm_free(rev, ierr)
  call MPI_Finalize(ierr)
end program rep_rma
