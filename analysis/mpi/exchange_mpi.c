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

/* Blocks beyond 1 GiB travel in pieces of this many bytes (int counts).
 * tests/unit/test_xch.c builds this file with a small AN_XCH_PIECE, so
 * that the pieces are tested on blocks of a few KiB. */
#ifdef AN_XCH_PIECE
#define PIECE ((size_t)(AN_XCH_PIECE))
#else
#define PIECE ((size_t)1 << 30)
#endif

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

/* ---- point-to-point ----------------------------------------------------
 * A block is one message of tag 3 (its length, 8 bytes, then its first
 * PIECE bytes) and, beyond PIECE, more pieces of tag 4 from the same
 * process: MPI keeps the order of the messages of one tag between two
 * processes, so a block's pieces follow its head and blocks keep the order
 * they were sent in.  A send copies the block and starts it (MPI_Isend);
 * the copies are freed as their sends complete (tested at every
 * point-to-point call, all waited for before MPI_Finalize). */
#define TAG_HEAD 3
#define TAG_PIECE 4

struct psend {                   /* a block on its way */
    struct psend *next;
    char *buf;                   /* length, then the block */
    int nreq;
    MPI_Request rq[];
};

static struct psend *pending;    /* blocks whose sends have not completed */

/* Free the copies whose sends completed; wait 1: wait for all of them. */
static void p_sweep(int wait)
{
    for (struct psend **pp = &pending; *pp;) {
        struct psend *b = *pp;
        int done = 1;
        for (int k = 0; k < b->nreq; k++) {   /* a completed request becomes MPI_REQUEST_NULL */
            int f = 1;
            if (wait) MPI_Wait(&b->rq[k], MPI_STATUS_IGNORE);
            else if (b->rq[k] != MPI_REQUEST_NULL) MPI_Test(&b->rq[k], &f, MPI_STATUS_IGNORE);
            if (!f) done = 0;
        }
        if (!done) {
            pp = &b->next;
            continue;
        }
        *pp = b->next;
        free(b->buf);
        free(b);
    }
}

static int m_send_(struct an_xch *x, int to, const void *buf, size_t len)
{
    if (to < 0 || to >= x->size) return -1;
    p_sweep(0);
    size_t first = len < PIECE ? len : PIECE;
    int npieces = (int)((len - first + PIECE - 1) / PIECE);
    struct psend *b = malloc(sizeof *b + (size_t)(1 + npieces) * sizeof(MPI_Request));
    char *c = malloc(8 + len);
    if (!b || !c) {
        free(b);
        free(c);
        return -1;
    }
    uint64_t l = len;
    memcpy(c, &l, 8);
    if (len) memcpy(c + 8, buf, len);
    b->buf = c;
    b->nreq = 1 + npieces;
    if (MPI_Isend(c, (int)(8 + first), MPI_BYTE, to, TAG_HEAD, MPI_COMM_WORLD, &b->rq[0]) != MPI_SUCCESS) return -1;
    size_t o = 8 + first;
    for (int k = 1; k <= npieces; k++) {
        size_t n = 8 + len - o < PIECE ? 8 + len - o : PIECE;
        if (MPI_Isend(c + o, (int)n, MPI_BYTE, to, TAG_PIECE, MPI_COMM_WORLD, &b->rq[k]) != MPI_SUCCESS) return -1;
        o += n;
    }
    b->next = pending;
    pending = b;
    if (to != x->rank) x->bytes += len;
    x->p2p_sent++;
    return 0;
}

static int m_recv_(struct an_xch *x, int wait, void **buf, size_t *len, int *from)
{
    MPI_Status st;
    p_sweep(0);
    if (wait) {
        if (MPI_Probe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &st) != MPI_SUCCESS) return -1;
    } else {
        int flag = 0;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) return -1;
        if (!flag) return 1;
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    int src = st.MPI_SOURCE;
    if (count < 8) return -1;
    char *h = malloc((size_t)count);
    if (!h) return -1;
    if (MPI_Recv(h, count, MPI_BYTE, src, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(h);
        return -1;
    }
    uint64_t l;
    memcpy(&l, h, 8);
    size_t first = (size_t)count - 8;
    if (first > l || (first < l && first != PIECE)) {   /* not a head this file sent */
        free(h);
        return -1;
    }
    char *b = NULL;
    if (l) {
        if (!(b = malloc((size_t)l))) {
            free(h);
            return -1;
        }
        memcpy(b, h + 8, first);
    }
    free(h);
    for (size_t o = first; o < l; o += PIECE) {
        size_t n = l - o < PIECE ? l - o : PIECE;
        if (MPI_Recv(b + o, (int)n, MPI_BYTE, src, TAG_PIECE, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            free(b);
            return -1;
        }
    }
    *buf = b;
    *len = (size_t)l;
    *from = src;
    x->p2p_recvd++;
    return 0;
}

static int m_send(struct an_xch *x, int to, const void *buf, size_t len)
{
    double t = cpu_now();
    int rc = m_send_(x, to, buf, len);
    x->xch_cpu += cpu_now() - t;
    return rc;
}

static int m_recv(struct an_xch *x, int wait, void **buf, size_t *len, int *from)
{
    double t = cpu_now();
    int rc = m_recv_(x, wait, buf, len, from);
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
    x.send = m_send;
    x.recv = m_recv;
    return &x;
}

void an_xch_mpi_end(struct an_xch *x)
{
    p_sweep(1);   /* the blocks still on their way */
    MPI_Finalize();
}
