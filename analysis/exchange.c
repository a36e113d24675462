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

struct an_xch *an_xch_serial(void)
{
    static struct an_xch x = {0, 1, 0, NULL, s_reduce, s_gather, s_bcast, s_alltoall, s_fail, 0, 0, 0, 0};
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
