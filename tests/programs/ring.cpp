// ring.cpp -- C++ ring for the C++ recording test: the C API called from C++
// (a class, a lambda, std::vector).  Every rank makes exactly Ring::laps calls
// of MPI_Send and of MPI_Recv, at the lines marked "site:...".
#include <mpi.h>
#include <cstdio>
#include <numeric>
#include <vector>

class Ring {
public:
    static constexpr int laps = 6;
    Ring(MPI_Comm c) : comm(c)
    {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    int run()
    {
        std::vector<int> v(3, 0);
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        auto send = [&](int to) {
            MPI_Send(v.data(), (int)v.size(), MPI_INT, to, 7, comm); // site:send0 site:sendN
        };
        for (int lap = 1; lap <= laps; lap++) {
            if (rank == 0) {
                v.assign(3, lap);
                send(right);
                MPI_Recv(v.data(), (int)v.size(), MPI_INT, left, 7, comm, MPI_STATUS_IGNORE); // site:recv0
            } else {
                MPI_Recv(v.data(), (int)v.size(), MPI_INT, left, 7, comm, MPI_STATUS_IGNORE); // site:recvN
                for (auto &x : v) x += rank;
                send(right);
            }
        }
        return std::accumulate(v.begin(), v.end(), 0);
    }

    int my_rank() const { return rank; }

private:
    MPI_Comm comm;
    int rank = -1, size = -1;
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Ring ring(MPI_COMM_WORLD);
    int r = ring.run();
    if (ring.my_rank() == 0) std::printf("ring.cpp: last lap sum %d\n", r);
    MPI_Finalize();
    return 0;
}
