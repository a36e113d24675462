! Deadlock (3 ranks), mpif.h: rank 0 waits (MPI_Waitall) for receives from
! ranks 1 and 2, which first exchange with MPI_Sendrecv with receive tags
! that match no send (rank 1 receives tag 5, rank 2 tag 6; both send tag 4):
! ranks 1 and 2 wait for each other, rank 0 for both.
program dl_sendrecv_f
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, reqs(2), x(4), y(4), z(4), st(MPI_STATUS_SIZE)
  integer :: stats(MPI_STATUS_SIZE, 2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = rank
  if (rank == 0) then
    call MPI_Irecv(y, 4, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(z, 4, MPI_INTEGER, 2, 9, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, stats, ierr) ! L_WAITALL
  else if (rank == 1) then
    call MPI_Sendrecv(x, 4, MPI_INTEGER, 2, 4, y, 4, MPI_INTEGER, 2, 5, MPI_COMM_WORLD, st, ierr) ! L_SR1
    call MPI_Send(x, 4, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, ierr)
  else if (rank == 2) then
    call MPI_Sendrecv(x, 4, MPI_INTEGER, 1, 4, y, 4, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, st, ierr) ! L_SR2
    call MPI_Send(x, 4, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
