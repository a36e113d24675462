/*
 * exchange.c — the serial exchange (exchange.h): one process, so every
 * collective call is the identity; and the slices of a run.
 */
#include "exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int s_reduce(struct an_xch *x, int64_t *v, unsigned n, enum an_xch_op op)
{
    return 0;
}

static int s_gather(struct an_xch *x, const void *buf, size_t len, void **all, size_t *lens)
{
    *all = malloc(len ? len : 1);
    if (!*all) return -1;
    memcpy(*all, buf, len);
    lens[0] = len;
    return 0;
}

static int s_bcast(struct an_xch *x, void *buf, size_t len)
{
    return 0;
}

static int s_alltoall(struct an_xch *x, void *const *out, const size_t *outlen, void **in, size_t *inlen)
{
    *in = malloc(outlen[0] ? outlen[0] : 1);
    if (!*in) return -1;
    memcpy(*in, out[0], outlen[0]);
    inlen[0] = outlen[0];
    return 0;
}

static void s_fail(struct an_xch *x, const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    exit(1);
}

/* Blocks one process sends itself: a FIFO list. */
struct s_blk {
    struct s_blk *next;
    size_t len;
    char data[];
};
static struct s_blk *s_head, **s_tail = &s_head;

static int s_send(struct an_xch *x, int to, const void *buf, size_t len)
{
    if (to != 0) return -1;
    struct s_blk *b = malloc(sizeof *b + len);
    if (!b) return -1;
    b->next = NULL;
    b->len = len;
    if (len) memcpy(b->data, buf, len);
    *s_tail = b;
    s_tail = &b->next;
    x->p2p_sent++;
    return 0;
}

static int s_recv(struct an_xch *x, int wait, void **buf, size_t *len, int *from)
{
    struct s_blk *b = s_head;
    if (!b) return wait ? -1 : 1;   /* nothing queued, and no one else can send */
    if (!(s_head = b->next)) s_tail = &s_head;
    *buf = NULL;
    if (b->len && !(*buf = malloc(b->len))) {
        b->next = s_head;   /* back where it was */
        s_head = b;
        if (!b->next) s_tail = &b->next;
        return -1;
    }
    if (b->len) memcpy(*buf, b->data, b->len);
    *len = b->len;
    *from = 0;
    free(b);
    x->p2p_recvd++;
    return 0;
}

struct an_xch *an_xch_serial(void)
{
    static struct an_xch x = {.rank = 0, .size = 1, .reduce_i64 = s_reduce, .gather = s_gather, .bcast = s_bcast,
                              .alltoall = s_alltoall, .fail = s_fail, .send = s_send, .recv = s_recv};
    return &x;
}

int an_xch_allgather(struct an_xch *x, const void *buf, size_t len, void **all, size_t *lens)
{
    size_t *l = malloc((size_t)x->size * sizeof *l);
    int64_t *v = malloc((size_t)x->size * sizeof *v);
    if (!l || !v) x->fail(x, "mpilens: out of memory");
    void *b = NULL;
    if (x->gather(x, buf, len, &b, l) != 0) x->fail(x, "mpilens: the exchange failed");
    for (int p = 0; p < x->size; p++) v[p] = x->rank == 0 ? (int64_t)l[p] : 0;
    x->reduce_i64(x, v, (unsigned)x->size, AN_XCH_SUM);   /* the lengths, everywhere */
    size_t total = 0;
    for (int p = 0; p < x->size; p++) total += (lens[p] = (size_t)v[p]);
    if (x->rank != 0 && !(b = malloc(total ? total : 1))) x->fail(x, "mpilens: out of memory");
    if (x->bcast(x, b, total) != 0) x->fail(x, "mpilens: the exchange failed");
    free(l);
    free(v);
    *all = b;
    return 0;
}

void an_xch_slice(int nranks, int nproc, int p, int *lo, int *hi)
{
    if (nproc < 1) nproc = 1;
    int q = nranks / nproc, r = nranks % nproc;
    *lo = p * q + (p < r ? p : r);
    *hi = *lo + q + (p < r);
}
