# Semantics through the Fortran bindings: MPI_IN_PLACE, MPI_BOTTOM,
# MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, status arrays, PROC_NULL,
# wildcards, 1-based Waitany/Waitsome indices, persistent requests, Bsend,
# ierr — with `use mpi` (tests/programs/sem_fortran.f90) and `use mpi_f08`
# (sem_f08.f90, with MPI_Init_thread): identical with and without the
# runtime, both MPIs, 2 and 4 ranks.
same_everywhere sem_fortran_f90
same_everywhere sem_f08_f90
