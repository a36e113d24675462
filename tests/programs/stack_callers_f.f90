! stack_callers_f.f90 — the Fortran twin of stack_callers.c (mpilens run -k N;
! tests/cases/report_stack.sh): one MPI_Barrier call (in helper) reached
! from f (3 rounds, twice) and g (5 rounds, twice).  The test finds the lines
! by the @ markers.
subroutine helper(n)
    use mpi
    implicit none
    integer, intent(in) :: n
    integer :: i, ierr
    do i = 1, n
        call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @fhelper
    end do
end subroutine helper

subroutine f()
    implicit none
    call helper(3) ! @ff
end subroutine f

subroutine g()
    implicit none
    call helper(5) ! @fg
end subroutine g

program stack_callers_f
    use mpi
    implicit none
    integer :: ierr, rank
    call MPI_Init(ierr)
    call f()
    call g()
    call f()
    call g()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    if (rank == 0) print '(a)', 'stack_callers_f: done'
    call MPI_Finalize(ierr)
end program stack_callers_f
