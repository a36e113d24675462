! rep_nb_f08.f90 -- Fortran (use mpi_f08) nonblocking, persistent, Sendrecv and probe
! patterns for `mpilens report` (tests/cases/report_fortran_nb.sh); the same
! program as rep_nb.f90 with the mpi_f08 handle and status types.
!
! Open MPI's Fortran bindings call PMPI_ directly, so the runtime sees only
! the Fortran entry points: requests must be taken from the Fortran handles,
! statuses from the Fortran statuses (also where the program passes
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE).  The patterns:
!   A  wildcard MPI_Irecv (MPI_ANY_SOURCE, MPI_ANY_TAG) + MPI_Waitall, with
!      statuses and with MPI_STATUSES_IGNORE; Isend, Issend, Send to them
!   B  Irecv/Isend (or Ibsend) ring pairs completed by Wait, Waitany, Waitsome,
!      Test, Testall, Testany, Testsome (some with wildcards)
!   C  Sendrecv and Sendrecv_replace, specific and wildcard, with a status
!      and with MPI_STATUS_IGNORE
!   D  persistent Send_init/Ssend_init/Recv_init (wildcard), Startall +
!      Waitall, Start + Wait, Request_free
!   E  MPI_PROC_NULL (no message)
!   F  Mprobe + Mrecv, Improbe + Mrecv, Probe + Recv, Iprobe + Recv
!   G  a wildcard Irecv cancelled (MPI_Cancel, Wait, Test_cancelled)
!   H  wildcard Irecv + Isend on a sub-communicator whose ranks differ from
!      the world's
! Rank 0 prints "EXPECT messages=<n> bytes=<b> cancelled=<c>": messages sent
! (MPI_PROC_NULL excluded) and their bytes over all ranks, receives cancelled.
program rep_nb_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr
  implicit none
  integer, parameter :: NB = 16
  integer :: ierr, rank, nprocs, i, k, n, left, right, idx, outcount, done, nw, ioff
  integer :: srank, ssize, sleft, sright
  type(MPI_Comm) :: sub
  type(MPI_Status) :: status, statuses(NB)
  type(MPI_Request) :: reqs(NB), pre(4)
  type(MPI_Message) :: msg
  type(c_ptr) :: bsaddr
  integer :: indices(NB)
  integer :: buf(64, NB), sbuf(64, NB)
  integer :: bsbuf(1024)
  logical :: flag
  integer(kind=8) :: msgs, bytes, cancelled

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  sbuf = rank
  buf = -1
  msgs = 0
  bytes = 0
  cancelled = 0

  ! MPICH 4.0's mpi_f08 returns 0-based indices from Waitany/Testany/
  ! Waitsome/Testsome: find the base with a receive from MPI_PROC_NULL
  call MPI_Irecv(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Waitany(1, reqs, idx, status, ierr)
  ioff = 1 - idx

  ! ---- A: wildcard Irecv + Waitall ----
  nw = 2 * (nprocs - 1)
  if (rank == 0) then
     do i = 1, nw
        call MPI_Irecv(buf(1, i), 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(i), ierr)
     end do
     call MPI_Waitall(nw, reqs, statuses, ierr)
     do i = 1, nw
        call MPI_Get_count(statuses(i), MPI_INTEGER, n, ierr)
        if (.not. ((statuses(i)%MPI_TAG == 10 + statuses(i)%MPI_SOURCE .and. n == statuses(i)%MPI_SOURCE) .or. &
                   (statuses(i)%MPI_TAG == 20 + statuses(i)%MPI_SOURCE .and. n == statuses(i)%MPI_SOURCE + 2) .or. &
                   (statuses(i)%MPI_TAG == 30 .and. n == 3) .or. (statuses(i)%MPI_TAG == 31 .and. n == 4))) then
           print *, 'rep_nb_f08: bad status in A', statuses(i)%MPI_SOURCE, statuses(i)%MPI_TAG, n
           call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
        end if
     end do
     do i = 1, nw
        call MPI_Irecv(buf(1, i), 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(i), ierr)
     end do
     call MPI_Waitall(nw, reqs, MPI_STATUSES_IGNORE, ierr)
  else
     call MPI_Isend(sbuf(1, 1), rank, MPI_INTEGER, 0, 10 + rank, MPI_COMM_WORLD, reqs(1), ierr)
     call MPI_Issend(sbuf(1, 2), rank + 2, MPI_INTEGER, 0, 20 + rank, MPI_COMM_WORLD, reqs(2), ierr)
     call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
     call MPI_Send(sbuf(1, 3), 3, MPI_INTEGER, 0, 30, MPI_COMM_WORLD, ierr)
     call MPI_Isend(sbuf(1, 4), 4, MPI_INTEGER, 0, 31, MPI_COMM_WORLD, reqs(1), ierr)
     call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
     msgs = msgs + 4
     bytes = bytes + 4 * (rank + rank + 2 + 3 + 4)
  end if

  ! (phase B's messages to rank 0 must not meet phase A's wildcards)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! ---- B: ring pairs, every completion routine ----
  call MPI_Buffer_attach(bsbuf, 4 * 1024, ierr)
  do k = 1, 7
     if (mod(k, 2) == 1) then
        call MPI_Irecv(buf(1, 1), 64, MPI_INTEGER, MPI_ANY_SOURCE, 100 + k, MPI_COMM_WORLD, reqs(1), ierr)
     else if (k == 4) then
        call MPI_Irecv(buf(1, 1), 64, MPI_INTEGER, left, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
     else
        call MPI_Irecv(buf(1, 1), 64, MPI_INTEGER, left, 100 + k, MPI_COMM_WORLD, reqs(1), ierr)
     end if
     if (k == 2) then
        call MPI_Ibsend(sbuf(1, 1), k, MPI_INTEGER, right, 100 + k, MPI_COMM_WORLD, reqs(2), ierr)
     else
        call MPI_Isend(sbuf(1, 1), k, MPI_INTEGER, right, 100 + k, MPI_COMM_WORLD, reqs(2), ierr)
     end if
     msgs = msgs + 1
     bytes = bytes + 4 * k
     select case (k)
     case (1)
        call MPI_Wait(reqs(1), status, ierr)
        call check(status, left, 100 + k, k)
        call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
     case (2)
        do i = 1, 2
           call MPI_Waitany(2, reqs, idx, status, ierr)
           if (idx + ioff == 1) call check(status, left, 100 + k, k)
        end do
     case (3)
        done = 0
        do while (done < 2)
           call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
           do i = 1, outcount
              if (indices(i) + ioff == 1) call check(statuses(i), left, 100 + k, k)
           end do
           done = done + outcount
        end do
     case (4)
        flag = .false.
        do while (.not. flag)
           call MPI_Test(reqs(1), flag, status, ierr)
        end do
        call check(status, left, 100 + k, k)
        flag = .false.
        do while (.not. flag)
           call MPI_Test(reqs(2), flag, MPI_STATUS_IGNORE, ierr)
        end do
     case (5)
        flag = .false.
        do while (.not. flag)
           call MPI_Testall(2, reqs, flag, statuses, ierr)
        end do
        call check(statuses(1), left, 100 + k, k)
     case (6)
        done = 0
        do while (done < 2)
           call MPI_Testany(2, reqs, idx, flag, status, ierr)
           if (flag .and. idx /= MPI_UNDEFINED) then
              if (idx + ioff == 1) call check(status, left, 100 + k, k)
              done = done + 1
           end if
        end do
     case (7)
        done = 0
        do while (done < 2)
           call MPI_Testsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
           if (outcount /= MPI_UNDEFINED) done = done + outcount
        end do
     end select
  end do
  call MPI_Buffer_detach(bsaddr, n, ierr)

  ! ---- C: Sendrecv, Sendrecv_replace ----
  call MPI_Sendrecv(sbuf, 5, MPI_INTEGER, right, 200, buf, 64, MPI_INTEGER, left, 200, MPI_COMM_WORLD, status, ierr)
  call check(status, left, 200, 5)
  call MPI_Sendrecv(sbuf, 6, MPI_INTEGER, right, 201, buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, status, ierr)
  call check(status, left, 201, 6)
  call MPI_Sendrecv(sbuf, 7, MPI_INTEGER, right, 202, buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  buf(1:8, 1) = rank
  call MPI_Sendrecv_replace(buf, 8, MPI_INTEGER, right, 203, left, 203, MPI_COMM_WORLD, status, ierr)
  call check(status, left, 203, 8)
  call MPI_Sendrecv_replace(buf, 9, MPI_INTEGER, right, 204, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE, ierr)
  msgs = msgs + 5
  bytes = bytes + 4 * (5 + 6 + 7 + 8 + 9)

  ! ---- D: persistent requests ----
  call MPI_Send_init(sbuf(1, 3), 10, MPI_INTEGER, right, 300, MPI_COMM_WORLD, pre(1), ierr)
  call MPI_Recv_init(buf(1, 3), 64, MPI_INTEGER, MPI_ANY_SOURCE, 300, MPI_COMM_WORLD, pre(2), ierr)
  do k = 1, 3
     call MPI_Startall(2, pre, ierr)
     call MPI_Waitall(2, pre, statuses, ierr)
     call check(statuses(2), left, 300, 10)
     msgs = msgs + 1
     bytes = bytes + 40
  end do
  call MPI_Start(pre(2), ierr)
  call MPI_Start(pre(1), ierr)
  call MPI_Wait(pre(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(pre(1), status, ierr)
  msgs = msgs + 1
  bytes = bytes + 40
  call MPI_Ssend_init(sbuf(1, 4), 11, MPI_INTEGER, right, 301, MPI_COMM_WORLD, pre(3), ierr)
  call MPI_Start(pre(2), ierr)      ! tag 300: nothing comes; cancelled below
  call MPI_Recv_init(buf(1, 5), 64, MPI_INTEGER, left, 301, MPI_COMM_WORLD, pre(4), ierr)
  call MPI_Startall(2, pre(3:4), ierr)
  call MPI_Waitall(2, pre(3:4), MPI_STATUSES_IGNORE, ierr)
  msgs = msgs + 1
  bytes = bytes + 44
  call MPI_Cancel(pre(2), ierr)
  call MPI_Wait(pre(2), status, ierr)
  call MPI_Test_cancelled(status, flag, ierr)
  if (.not. flag) then
     print *, 'rep_nb_f08: persistent receive not cancelled'
     call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  cancelled = cancelled + 1
  do i = 1, 4
     call MPI_Request_free(pre(i), ierr)
  end do

  ! ---- E: MPI_PROC_NULL ----
  call MPI_Irecv(buf, 64, MPI_INTEGER, MPI_PROC_NULL, 400, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, MPI_PROC_NULL, 400, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call MPI_Sendrecv(sbuf, 2, MPI_INTEGER, MPI_PROC_NULL, 401, buf, 64, MPI_INTEGER, MPI_PROC_NULL, 401, &
                    MPI_COMM_WORLD, status, ierr)

  ! ---- F: probes ----
  call MPI_Isend(sbuf, 11, MPI_INTEGER, right, 500, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Mprobe(MPI_ANY_SOURCE, 500, MPI_COMM_WORLD, msg, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  call check(status, left, 500, 11)
  call MPI_Mrecv(buf, n, MPI_INTEGER, msg, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Isend(sbuf, 12, MPI_INTEGER, right, 501, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, msg, status, ierr)
  end do
  call check(status, left, 501, 12)
  call MPI_Mrecv(buf, 64, MPI_INTEGER, msg, status, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Isend(sbuf, 13, MPI_INTEGER, right, 502, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Probe(left, 502, MPI_COMM_WORLD, status, ierr)
  call MPI_Recv(buf, 64, MPI_INTEGER, left, 502, MPI_COMM_WORLD, status, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Isend(sbuf, 14, MPI_INTEGER, right, 503, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Iprobe(MPI_ANY_SOURCE, 503, MPI_COMM_WORLD, flag, status, ierr)
  end do
  call MPI_Recv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  msgs = msgs + 4
  bytes = bytes + 4 * (11 + 12 + 13 + 14)

  ! ---- G: a wildcard receive cancelled ----
  call MPI_Irecv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Cancel(reqs(1), ierr)
  call MPI_Wait(reqs(1), status, ierr)
  call MPI_Test_cancelled(status, flag, ierr)
  if (.not. flag) then
     print *, 'rep_nb_f08: receive not cancelled'
     call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  cancelled = cancelled + 1

  ! ---- H: a sub-communicator, ranks reversed ----
  call MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, sub, ierr)
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)
  sright = mod(srank + 1, ssize)
  sleft = mod(srank - 1 + ssize, ssize)
  call MPI_Irecv(buf(1, 1), 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, sub, reqs(1), ierr)
  call MPI_Irecv(buf(1, 2), 64, MPI_INTEGER, sleft, 601, sub, reqs(2), ierr)
  call MPI_Isend(sbuf, 15, MPI_INTEGER, sright, 600, sub, reqs(3), ierr)
  call MPI_Isend(sbuf, 16, MPI_INTEGER, sright, 601, sub, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  call check(statuses(1), sleft, 600, 15)
  msgs = msgs + 2
  bytes = bytes + 4 * (15 + 16)
  call MPI_Comm_free(sub, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, msgs, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, bytes, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, cancelled, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0,A,I0)', 'EXPECT messages=', msgs, ' bytes=', bytes, ' cancelled=', cancelled
  call MPI_Finalize(ierr)

contains

  subroutine check(st, src, tag, cnt)
    type(MPI_Status), intent(in) :: st
    integer, intent(in) :: src, tag, cnt
    integer :: c, e
    call MPI_Get_count(st, MPI_INTEGER, c, e)
    if (st%MPI_SOURCE /= src .or. st%MPI_TAG /= tag .or. c /= cnt) then
       print *, 'rep_nb_f08: bad status', st%MPI_SOURCE, st%MPI_TAG, c, ' want', src, tag, cnt
       call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
  end subroutine check

end program rep_nb_f08
