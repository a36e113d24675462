! Deadlock (2 ranks, Fortran): both receive from the other first.
program dl_cycle_f
    use mpi
    implicit none
    integer :: rank, other, ierr, x
    integer :: st(MPI_STATUS_SIZE)
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    other = 1 - rank
    x = rank
    call MPI_Recv(x, 1, MPI_INTEGER, other, 9, MPI_COMM_WORLD, st, ierr) ! L_RECV
    call MPI_Send(x, 1, MPI_INTEGER, other, 9, MPI_COMM_WORLD, ierr)
    call MPI_Finalize(ierr)
end program dl_cycle_f
