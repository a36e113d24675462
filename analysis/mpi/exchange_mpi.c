/*
 * exchange_mpi.c — the exchange (exchange.h) over MPI_COMM_WORLD of the
 * analysis job.  Compiled only into mpilens-mpi-<impl>, once per MPI; the
 * analysis library and the mpilens binary never link MPI.
 *
 * Errors: MPI_ERRORS_ARE_FATAL (the default) ends the job when a process
 * dies; an_xch_fail calls MPI_Abort, so a process that cannot go on never
 * leaves the others waiting.
 */
#include "exchange.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time inside the exchange (x->xch_cpu): what waiting costs */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int m_reduce_(struct an_xch *x, int64_t *v, unsigned n, enum an_xch_op op)
{
    MPI_Op o = op == AN_XCH_SUM ? MPI_SUM : op == AN_XCH_MIN ? MPI_MIN : MPI_MAX;
    x->bytes += (uint64_t)n * sizeof *v;
    return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT64_T, o, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

/* Blocks beyond 1 GiB travel in pieces of this many bytes (int counts). */
#define PIECE (1u << 30)

static int m_gather_(struct an_xch *x, const void *buf, size_t len, void **all, size_t *lens)
{
    unsigned long long l = len, *ls = NULL;
    if (x->rank == 0 && !(ls = malloc((size_t)x->size * sizeof *ls))) x->fail(x, "mpilens: out of memory");
    MPI_Gather(&l, 1, MPI_UNSIGNED_LONG_LONG, ls, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    x->bytes += len;
    if (x->rank != 0) {
        for (size_t o = 0; o < len; o += PIECE) {
            size_t k = len - o < PIECE ? len - o : PIECE;
            MPI_Send((const char *)buf + o, (int)k, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        *all = NULL;
        return 0;
    }
    size_t total = 0;
    for (int p = 0; p < x->size; p++) total += (lens[p] = (size_t)ls[p]);
    free(ls);
    char *b = malloc(total ? total : 1);
    if (!b) x->fail(x, "mpilens: out of memory");
    size_t at = 0;
    for (int p = 0; p < x->size; p++) {
        if (p == 0) memcpy(b, buf, len);
        else
            for (size_t o = 0; o < lens[p]; o += PIECE) {
                size_t k = lens[p] - o < PIECE ? lens[p] - o : PIECE;
                MPI_Recv(b + at + o, (int)k, MPI_BYTE, p, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        at += lens[p];
    }
    *all = b;
    return 0;
}

static int m_bcast_(struct an_xch *x, void *buf, size_t len)
{
    if (x->rank == 0) x->bytes += len * (size_t)(x->size - 1);
    for (size_t o = 0; o < len; o += PIECE) {
        size_t k = len - o < PIECE ? len - o : PIECE;
        if (MPI_Bcast((char *)buf + o, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    }
    return 0;
}

/* Pairwise: the lengths first, then each block in pieces of at most PIECE. */
static int m_alltoall_(struct an_xch *x, void *const *out, const size_t *outlen, void **in, size_t *inlen)
{
    int n = x->size;
    unsigned long long *ol = malloc((size_t)n * sizeof *ol), *il = malloc((size_t)n * sizeof *il);
    if (!ol || !il) x->fail(x, "mpilens: out of memory");
    for (int p = 0; p < n; p++) ol[p] = outlen[p];
    if (MPI_Alltoall(ol, 1, MPI_UNSIGNED_LONG_LONG, il, 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    size_t total = 0, at = 0;
    unsigned nreq = 0;
    for (int p = 0; p < n; p++) {
        total += (inlen[p] = (size_t)il[p]);
        nreq += (unsigned)((il[p] + PIECE - 1) / PIECE + (ol[p] + PIECE - 1) / PIECE);
    }
    char *b = malloc(total ? total : 1);
    MPI_Request *rq = malloc((nreq ? nreq : 1) * sizeof *rq);
    MPI_Status *sts = malloc((nreq ? nreq : 1) * sizeof *sts);
    if (!b || !rq || !sts) x->fail(x, "mpilens: out of memory");
    unsigned k = 0;
    for (int p = 0; p < n; p++) {
        for (size_t o = 0; o < inlen[p]; o += PIECE) {
            size_t c = inlen[p] - o < PIECE ? inlen[p] - o : PIECE;
            MPI_Irecv(b + at + o, (int)c, MPI_BYTE, p, 2, MPI_COMM_WORLD, &rq[k++]);
        }
        at += inlen[p];
    }
    for (int p = 0; p < n; p++) {
        for (size_t o = 0; o < outlen[p]; o += PIECE) {
            size_t c = outlen[p] - o < PIECE ? outlen[p] - o : PIECE;
            MPI_Isend((const char *)out[p] + o, (int)c, MPI_BYTE, p, 2, MPI_COMM_WORLD, &rq[k++]);
        }
        if (p != x->rank) x->bytes += outlen[p];
    }
    int rc = MPI_Waitall((int)k, rq, sts);
    free(rq);
    free(sts);
    free(ol);
    free(il);
    *in = b;
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int m_reduce(struct an_xch *x, int64_t *v, unsigned n, enum an_xch_op op)
{
    double t = cpu_now();
    int rc = m_reduce_(x, v, n, op);
    x->xch_cpu += cpu_now() - t;
    return rc;
}

static int m_gather(struct an_xch *x, const void *buf, size_t len, void **all, size_t *lens)
{
    double t = cpu_now();
    int rc = m_gather_(x, buf, len, all, lens);
    x->xch_cpu += cpu_now() - t;
    return rc;
}

static int m_bcast(struct an_xch *x, void *buf, size_t len)
{
    double t = cpu_now();
    int rc = m_bcast_(x, buf, len);
    x->xch_cpu += cpu_now() - t;
    return rc;
}

static int m_alltoall(struct an_xch *x, void *const *out, const size_t *outlen, void **in, size_t *inlen)
{
    double t = cpu_now();
    int rc = m_alltoall_(x, out, outlen, in, inlen);
    x->xch_cpu += cpu_now() - t;
    return rc;
}

static void m_fail(struct an_xch *x, const char *msg)
{
    fprintf(stderr, "%s (analysis process %d of %d; the job stops)\n", msg, x->rank, x->size);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

struct an_xch *an_xch_mpi(int *argc, char ***argv)
{
    static struct an_xch x;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.size);
    x.reduce_i64 = m_reduce;
    x.gather = m_gather;
    x.bcast = m_bcast;
    x.alltoall = m_alltoall;
    x.fail = m_fail;
    return &x;
}

void an_xch_mpi_end(struct an_xch *x)
{
    MPI_Finalize();
}
