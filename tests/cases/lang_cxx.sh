# tests/programs/ring.cpp through `mpilens run`, Open MPI and MPICH, 3 ranks: output as
# with a plain mpirun; via mpilens dump, each rank's MPI_Send and MPI_Recv
# recorded exactly once per call, at ring.cpp:<line>.
ring_test ring_cpp ring.cpp c
