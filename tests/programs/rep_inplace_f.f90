! rep_inplace_f.f90 -- rep_inplace.c in Fortran (use mpi), 4 ranks
! (tests/cases/report_inplace.sh): the gather and scatter collectives with
! MPI_IN_PLACE, the count and type MPI then ignores holding 999
! MPI_DOUBLE_PRECISION, on MPI_COMM_WORLD, cnt = (1,2,3,4) integers, in
! this order:
!   1 MPI_Allgather   in place, 2 integers a block
!   2 MPI_Allgatherv  in place, cnt
!   3 MPI_Alltoall    in place, 2 integers a block
!   4 MPI_Gather      root 1 in place, 3 integers a block
!   5 MPI_Gatherv     root 3 in place, cnt (non-roots send r+1 integers)
!   6 MPI_Scatter     root 2 receives in place, 3 integers a block
!   7 MPI_Scatterv    root 0 receives in place, cnt (non-roots receive r+1)
! then the nonblocking forms of 1, 3, 4, 6 (MPI_Iallgather, MPI_Ialltoall,
! MPI_Igather, MPI_Iscatter, same arguments), each completed by MPI_Wait.
! Prints "rep_inplace: done", or SKIP unless on 4 ranks.
program rep_inplace_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, req
  integer :: rb(256), sb(256), cnt(4), dsp(4)
  double precision :: dummy(1)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 4) then
    if (rank == 0) print '(A)', 'SKIP: rep_inplace_f wants 4 ranks'
    call MPI_Finalize(ierr)
    stop
  end if
  rb = 0
  sb = rank
  dummy = 0
  cnt = (/1, 2, 3, 4/)
  dsp = (/0, 1, 3, 6/)
  call MPI_Allgather(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Allgatherv(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Alltoall(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (rank == 1) then
    call MPI_Gather(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, 3, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  else
    call MPI_Gather(sb, 3, MPI_INTEGER, rb, 3, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  end if
  if (rank == 3) then
    call MPI_Gatherv(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, cnt, dsp, MPI_INTEGER, 3, MPI_COMM_WORLD, ierr)
  else
    call MPI_Gatherv(sb, rank + 1, MPI_INTEGER, rb, cnt, dsp, MPI_INTEGER, 3, MPI_COMM_WORLD, ierr)
  end if
  if (rank == 2) then
    call MPI_Scatter(sb, 3, MPI_INTEGER, MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, 2, MPI_COMM_WORLD, ierr)
  else
    call MPI_Scatter(sb, 3, MPI_INTEGER, rb, 3, MPI_INTEGER, 2, MPI_COMM_WORLD, ierr)
  end if
  if (rank == 0) then
    call MPI_Scatterv(sb, cnt, dsp, MPI_INTEGER, MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Scatterv(sb, cnt, dsp, MPI_INTEGER, rb, rank + 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Iallgather(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, 2, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ialltoall(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, 2, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (rank == 1) then
    call MPI_Igather(MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, rb, 3, MPI_INTEGER, 1, MPI_COMM_WORLD, req, ierr)
  else
    call MPI_Igather(sb, 3, MPI_INTEGER, rb, 3, MPI_INTEGER, 1, MPI_COMM_WORLD, req, ierr)
  end if
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (rank == 2) then
    call MPI_Iscatter(sb, 3, MPI_INTEGER, MPI_IN_PLACE, 999, MPI_DOUBLE_PRECISION, 2, MPI_COMM_WORLD, req, ierr)
  else
    call MPI_Iscatter(sb, 3, MPI_INTEGER, rb, 3, MPI_INTEGER, 2, MPI_COMM_WORLD, req, ierr)
  end if
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) print '(A)', 'rep_inplace: done'
  call MPI_Finalize(ierr)
end program rep_inplace_f
