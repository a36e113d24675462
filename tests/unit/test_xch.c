/*
 * test_xch.c — the exchange of the parallel analysis (analysis/exchange.h)
 * on its own, under mpirun (tests/cases/xch_p2p.sh): the point-to-point
 * blocks (every size around the piece boundary, to every process and to
 * itself, in the order sent, their bytes counted), a token passed from
 * process to process (one blocking receive per hop, as a replay waiting
 * for another slice's edge value does), point-to-point blocks sent before
 * the collective calls and received after them, the collective calls on
 * blocks of several pieces; and the serial exchange's own queue.
 * Built with a small AN_XCH_PIECE so that blocks of a few KiB travel in
 * pieces.  Prints "ok" at process 0, or what failed (exit status 1).
 */
#include "exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct an_xch *an_xch_mpi(int *argc, char ***argv);
void an_xch_mpi_end(struct an_xch *x);

static int failed;
#define CHECK(c, ...)                                             \
    do {                                                          \
        if (!(c)) {                                               \
            fprintf(stderr, "test_xch: FAIL line %d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                         \
            fprintf(stderr, "\n");                                \
            failed = 1;                                           \
        }                                                         \
    } while (0)

#ifndef AN_XCH_PIECE
#error "build with -DAN_XCH_PIECE=4096"
#endif
static const size_t sizes[] = {0, 1, 100, AN_XCH_PIECE - 8, AN_XCH_PIECE, AN_XCH_PIECE + 1, 3 * AN_XCH_PIECE + 5, 20000};
#define K (sizeof sizes / sizeof *sizes)

static unsigned char pat(int from, int to, unsigned seq, size_t i)
{
    return (unsigned char)(from * 31 + to * 7 + seq * 13 + i * 3 + (i >> 8));
}

static void fill(char *b, int from, int to, unsigned seq, size_t len)
{
    for (size_t i = 0; i < len; i++) b[i] = (char)pat(from, to, seq, i);
}

/* The block sent as number seq from `from` to `to`: its size and bytes. */
static int same(const char *b, size_t len, int from, int to, unsigned seq)
{
    if (len != sizes[seq % K]) return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)b[i] != pat(from, to, seq, i)) return 0;
    return 1;
}

static void test_serial(void)
{
    struct an_xch *s = an_xch_serial();
    void *b;
    size_t l;
    int from;
    CHECK(s->recv(s, 0, &b, &l, &from) == 1, "serial: a block out of an empty queue");
    CHECK(s->recv(s, 1, &b, &l, &from) == -1, "serial: waiting on an empty queue does not say it would wait forever");
    CHECK(s->send(s, 1, "x", 1) == -1, "serial: a send to process 1 of 1 accepted");
    char buf[30000];
    for (unsigned q = 0; q < K; q++) {
        fill(buf, 0, 0, q, sizes[q]);
        CHECK(s->send(s, 0, buf, sizes[q]) == 0, "serial: send %u", q);
    }
    for (unsigned q = 0; q < K; q++) {
        b = NULL;
        int rc = s->recv(s, q & 1, &b, &l, &from);
        CHECK(rc == 0 && from == 0 && same(b, l, 0, 0, q), "serial: block %u (rc %d, %zu bytes)", q, rc, l);
        free(b);
    }
    CHECK(s->recv(s, 0, &b, &l, &from) == 1, "serial: a block left after all were received");
    CHECK(s->p2p_sent == K && s->p2p_recvd == K, "serial: counted %llu sent, %llu received",
          (unsigned long long)s->p2p_sent, (unsigned long long)s->p2p_recvd);
}

int main(int argc, char **argv)
{
    struct an_xch *x = an_xch_mpi(&argc, &argv);
    if (!x) {
        fprintf(stderr, "test_xch: MPI_Init failed\n");
        return 1;
    }
    int P = x->size, me = x->rank;
    if (me == 0) test_serial();
    char *buf = malloc(4 * AN_XCH_PIECE + 30000);
    unsigned *seq = calloc((size_t)P, sizeof *seq);
    if (!buf || !seq) x->fail(x, "test_xch: out of memory");

    /* 1: K blocks to every process, itself included; the bytes to others counted */
    uint64_t b0 = x->bytes, others = 0;
    for (unsigned q = 0; q < K; q++)
        for (int p = 0; p < P; p++) {
            int to = (me + p) % P;
            fill(buf, me, to, q, sizes[q]);
            CHECK(x->send(x, to, buf, sizes[q]) == 0, "send %u to %d", q, to);
            if (to != me) others += sizes[q];
        }
    CHECK(x->bytes - b0 == others, "bytes counted %llu, sent to others %llu", (unsigned long long)(x->bytes - b0),
          (unsigned long long)others);
    for (unsigned n = 0; n < K * (unsigned)P;) {
        void *b = NULL;
        size_t l = 0;
        int from = -1;
        int rc = x->recv(x, n & 1, &b, &l, &from);   /* polls and waits in turn */
        if (rc == 1) continue;
        CHECK(rc == 0 && from >= 0 && from < P, "recv: rc %d from %d", rc, from);
        if (rc != 0 || from < 0 || from >= P) break;
        CHECK(seq[from] < K && same(b, l, from, me, seq[from]), "block %u from %d: %zu bytes, not the one sent next",
              seq[from], from, l);
        seq[from]++;
        free(b);
        n++;
    }
    int64_t v = failed;
    x->reduce_i64(x, &v, 1, AN_XCH_MAX);   /* every process received its blocks before the token goes */

    /* 2: a token around the processes, three times: every hop a blocking receive */
    int64_t token = 0;
    if (me == 0) {
        CHECK(x->send(x, 1 % P, &token, sizeof token) == 0, "token send");
    }
    for (int round = 0; round < 3; round++) {
        void *b = NULL;
        size_t l = 0;
        int from = -1;
        int rc = x->recv(x, 1, &b, &l, &from);
        CHECK(rc == 0 && l == sizeof token && from == (me + P - 1) % P, "token: rc %d, %zu bytes from %d", rc, l, from);
        if (rc != 0 || l != sizeof token) break;
        memcpy(&token, b, sizeof token);
        free(b);
        int64_t want = (int64_t)round * P + (me == 0 ? P - 1 : me - 1);
        CHECK(token == want, "token %lld at process %d round %d, want %lld", (long long)token, me, round, (long long)want);
        token++;
        if (!(me == 0 && round == 2)) CHECK(x->send(x, (me + 1) % P, &token, sizeof token) == 0, "token send");
    }

    v |= failed;
    x->reduce_i64(x, &v, 1, AN_XCH_MAX);   /* the token's last hop came before the next blocks go */

    /* 3: blocks sent before collective calls (in pieces) and received after them */
    for (int p = 0; p < P; p++) {
        fill(buf, me, p, 6, sizes[6]);
        CHECK(x->send(x, p, buf, sizes[6]) == 0, "send before the collectives");
    }
    void **out = calloc((size_t)P, sizeof *out);
    size_t *ol = calloc((size_t)P, sizeof *ol), *il = calloc((size_t)P, sizeof *il);
    if (!out || !ol || !il) x->fail(x, "test_xch: out of memory");
    for (int p = 0; p < P; p++) {
        ol[p] = sizes[(unsigned)(me + p) % K];
        out[p] = malloc(ol[p] + 1);
        fill(out[p], me, p, (unsigned)(me + p) % K, ol[p]);
    }
    void *in = NULL;
    CHECK(x->alltoall(x, out, ol, &in, il) == 0, "alltoall");
    size_t at = 0;
    for (int p = 0; p < P; p++) {
        CHECK(same((char *)in + at, il[p], p, me, (unsigned)(p + me) % K), "alltoall block from %d", p);
        at += il[p];
    }
    free(in);
    void *all = NULL;
    fill(buf, me, 0, 7, sizes[7]);
    CHECK(x->gather(x, buf, sizes[7], &all, il) == 0, "gather");
    if (me == 0) {
        at = 0;
        for (int p = 0; p < P; p++) {
            CHECK(same((char *)all + at, il[p], p, 0, 7), "gather block from %d", p);
            at += il[p];
        }
    }
    free(all);
    fill(buf, 0, 1, 6, sizes[6]);
    CHECK(x->bcast(x, buf, sizes[6]) == 0 && same(buf, sizes[6], 0, 1, 6), "bcast of several pieces");
    memset(seq, 0, (size_t)P * sizeof *seq);
    for (int n = 0; n < P; n++) {
        void *b = NULL;
        size_t l = 0;
        int from = -1;
        int rc = x->recv(x, 1, &b, &l, &from);
        CHECK(rc == 0 && from >= 0 && from < P && !seq[from] && same(b, l, from, me, 6),
              "a block sent before the collectives: rc %d from %d, %zu bytes", rc, from, l);
        if (rc == 0 && from >= 0 && from < P) seq[from]++;
        free(b);
    }

    /* 4: everything received: nothing left to poll, anywhere */
    int64_t sent = (int64_t)x->p2p_sent, recvd = (int64_t)x->p2p_recvd;
    int64_t tot[2] = {sent, recvd};
    x->reduce_i64(x, tot, 2, AN_XCH_SUM);
    CHECK(tot[0] == tot[1], "%lld blocks sent, %lld received", (long long)tot[0], (long long)tot[1]);
    void *b = NULL;
    size_t l;
    int from;
    CHECK(x->recv(x, 0, &b, &l, &from) == 1, "a block left after all were received");
    v |= failed;
    x->reduce_i64(x, &v, 1, AN_XCH_MAX);
    if (me == 0) printf(v ? "FAIL (P = %d)\n" : "ok (P = %d, %lld blocks)\n", P, (long long)tot[0]);
    for (int p = 0; p < P; p++) free(out[p]);
    free(out);
    free(ol);
    free(il);
    free(buf);
    free(seq);
    an_xch_mpi_end(x);
    return v ? 1 : 0;
}
