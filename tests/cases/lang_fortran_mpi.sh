# tests/programs/ring.f90 through `mpilens run`, Open MPI and MPICH, 3 ranks: output as
# with a plain mpirun; via mpilens dump, each rank's MPI_Send and MPI_Recv
# recorded exactly once per call, at ring.f90:<line>, every event lang=fortran.
ring_test ring_f90 ring.f90 fortran
