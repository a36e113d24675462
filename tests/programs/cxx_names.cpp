// cxx_names.cpp -- C++ names for the demangling test (tests/cases/lang_cxx.sh),
// built there without -g so that call sites are "function+0xOFF(module)":
// MPI called from a member function three namespaces deep, from a lambda
// inside it, and MPI_Comm_set_errhandler (a long routine name).
#include <mpi.h>
#include <cstdio>
#include <vector>

namespace mpilens_outer_namespace {
namespace middle_namespace {
class HaloExchangerWithLongName {
public:
    explicit HaloExchangerWithLongName(MPI_Comm c) : comm(c)
    {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    __attribute__((noinline)) int reverse_communication_step(int lap)
    {
        std::vector<double> out(4, lap + rank), in(4, 0);
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_Sendrecv(out.data(), 4, MPI_DOUBLE, right, 5, in.data(), 4, MPI_DOUBLE, left, 5, comm,
                     MPI_STATUS_IGNORE);
        auto reduce = [&](double v) {
            double s = 0;
            MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
            return s;
        };
        return (int)reduce(in[0]);
    }

private:
    MPI_Comm comm;
    int rank = 0, size = 1;
};
} // namespace middle_namespace
} // namespace mpilens_outer_namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpilens_outer_namespace::middle_namespace::HaloExchangerWithLongName h(MPI_COMM_WORLD);
    int r = 0;
    for (int lap = 0; lap < 3; lap++) r += h.reverse_communication_step(lap);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) std::printf("cxx_names: %d\n", r);
    MPI_Finalize();
    return 0;
}
