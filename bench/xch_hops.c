/*
 * xch_hops.c — what a chain of edge values crossing slices costs the
 * parallel analysis's exchange (analysis/exchange.h), the question of a
 * replay across slices (docs/PARALLEL.md, "The critical path across
 * slices"): a run whose critical path ping-pongs across a slice boundary
 * makes a chain in which every hop needs the other process's value before
 * it can go on.
 *
 *   mpirun -n P xch_hops HOPS [BYTES]     process 0 prints one table row
 *
 * A token of BYTES (default 112: an edge value, six int64, the time and a
 * path token) goes from process to process HOPS times, two ways:
 *   p2p       the point-to-point blocks: the holder sends it to the next
 *             process, which waits for it (recv, wait 1);
 *   alltoall  rounds of all-to-alls: in each round every process takes
 *             part, the holder's block to the next process the only one
 *             not empty (a replay in rounds of stream time, one round per
 *             hop).
 * Each is timed three times, interleaved, the best kept (a shared machine);
 * CPU of process 0 beside the wall time (MPI spins while it waits).
 * bench/xch_bench builds it with both MPIs and prints the table.
 */
#include "exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct an_xch *an_xch_mpi(int *argc, char ***argv);
void an_xch_mpi_end(struct an_xch *x);

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void hops_p2p(struct an_xch *x, long hops, char *tok, size_t bytes)
{
    int P = x->size, me = x->rank;
    /* hop h goes from process h % P to (h + 1) % P */
    if (me == 0 && hops > 0 && x->send(x, 1 % P, tok, bytes)) x->fail(x, "xch_hops: send failed");
    for (long h = 0; h < hops; h++) {
        if ((h + 1) % P != me) continue;
        void *b;
        size_t l;
        int from;
        if (x->recv(x, 1, &b, &l, &from) || l != bytes) x->fail(x, "xch_hops: recv failed");
        memcpy(tok, b, bytes);
        free(b);
        if (h + 1 < hops && x->send(x, (me + 1) % P, tok, bytes)) x->fail(x, "xch_hops: send failed");
    }
}

static void hops_alltoall(struct an_xch *x, long hops, char *tok, size_t bytes)
{
    int P = x->size, me = x->rank;
    void **out = calloc((size_t)P, sizeof *out);
    size_t *ol = calloc((size_t)P, sizeof *ol), *il = calloc((size_t)P, sizeof *il);
    if (!out || !ol || !il) x->fail(x, "xch_hops: out of memory");
    for (long h = 0; h < hops; h++) {
        int holder = (int)(h % P), next = (int)((h + 1) % P);
        memset(ol, 0, (size_t)P * sizeof *ol);
        if (me == holder) {
            out[next] = tok;
            ol[next] = bytes;
        }
        void *in = NULL;
        if (x->alltoall(x, out, ol, &in, il)) x->fail(x, "xch_hops: alltoall failed");
        if (me == next) {
            if (il[holder] != bytes) x->fail(x, "xch_hops: the token did not come");
            size_t at = 0;
            for (int p = 0; p < holder; p++) at += il[p];
            memcpy(tok, (char *)in + at, bytes);
        }
        out[next] = NULL;
        free(in);
    }
    free(out);
    free(ol);
    free(il);
}

int main(int argc, char **argv)
{
    struct an_xch *x = an_xch_mpi(&argc, &argv);
    if (!x) return 1;
    long hops = argc > 1 ? atol(argv[1]) : 20000;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 112;
    if (hops < 1 || bytes < 1) x->fail(x, "usage: xch_hops HOPS [BYTES]");
    char *tok = calloc(1, bytes);
    if (!tok) x->fail(x, "xch_hops: out of memory");
    double best[2][2] = {{1e30, 1e30}, {1e30, 1e30}};   /* [way][wall, cpu] */
    for (int rep = 0; rep < 3; rep++)
        for (int way = 0; way < 2; way++) {
            int64_t sync = 0;
            x->reduce_i64(x, &sync, 1, AN_XCH_SUM);
            double w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);
            if (way == 0) hops_p2p(x, hops, tok, bytes);
            else hops_alltoall(x, hops, tok, bytes);
            x->reduce_i64(x, &sync, 1, AN_XCH_SUM);
            w = now(CLOCK_MONOTONIC) - w;
            c = now(CLOCK_PROCESS_CPUTIME_ID) - c;
            if (w < best[way][0]) best[way][0] = w, best[way][1] = c;
        }
    if (x->rank == 0)
        printf("| %d | %ld | %zu | %.2f | %.2f | %.2f | %.2f | %.1fx |\n", x->size, hops, bytes,
               best[0][0] / hops * 1e6, best[0][1] / hops * 1e6, best[1][0] / hops * 1e6, best[1][1] / hops * 1e6,
               best[1][0] / best[0][0]);
    free(tok);
    an_xch_mpi_end(x);
    return 0;
}
