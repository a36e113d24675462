# mpi4py (Debian's python3-mpi4py) exercising buffer and pickled
# point-to-point, wildcard receive, collectives, nonblocking requests.
from mpi4py import MPI
import array

c = MPI.COMM_WORLD
r, n = c.Get_rank(), c.Get_size()
a = array.array('d', [float(r * i) for i in range(10)])
b = array.array('d', [0.0] * 10)
# 1 buffer message per rank around the ring, 80 bytes each
c.Sendrecv([a, MPI.DOUBLE], dest=(r + 1) % n, sendtag=5,
           recvbuf=[b, MPI.DOUBLE], source=(r - 1) % n, recvtag=5)
# nonblocking buffer messages: rank 0 gathers one int from every other rank
if r == 0:
    bufs = [array.array('i', [0]) for _ in range(n - 1)]
    reqs = [c.Irecv([bufs[i], MPI.INT], source=MPI.ANY_SOURCE, tag=7) for i in range(n - 1)]
    MPI.Request.Waitall(reqs)
    got = sorted(x[0] for x in bufs)
else:
    c.Isend([array.array('i', [r * 100]), MPI.INT], dest=0, tag=7).Wait()
    got = None
s = c.allreduce(r)
obj = c.bcast({'k': 3} if r == 0 else None)
c.Barrier()
lines = c.gather(f'{r} sum {s} obj {obj} ring {b[1]} got {got}')
if r == 0:
    print('\n'.join(lines), flush=True)
