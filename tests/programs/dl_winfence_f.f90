! Deadlock (2 ranks): dl_winfence.c in Fortran (mpif bindings: Open MPI's
! call PMPI_ directly, MPICH's the C MPI_ symbols): rank 0 in MPI_Win_fence,
! rank 1 in MPI_Recv for a message rank 0 sends only after the fence.
program dl_winfence_f
  use mpi
  implicit none
  integer :: rank, ierr, win, x, buf(4)
  integer(kind=MPI_ADDRESS_KIND) :: sz, disp
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  sz = 16
  call MPI_Win_create(buf, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  x = 1
  disp = rank
  call MPI_Put(x, 1, MPI_INTEGER, 1 - rank, disp, 1, MPI_INTEGER, win, ierr)
  if (rank == 0) then
     call MPI_Win_fence(0, win, ierr) ! L_FENCE
     call MPI_Send(x, 1, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, ierr)
  else
     call MPI_Recv(x, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! L_RECV
     call MPI_Win_fence(0, win, ierr)
  end if
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program dl_winfence_f
