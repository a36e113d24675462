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

static void s_fail(struct an_xch *x, const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    exit(1);
}

struct an_xch *an_xch_serial(void)
{
    static struct an_xch x = {0, 1, 0, NULL, s_reduce, s_gather, s_bcast, s_fail};
    return &x;
}

void an_xch_slice(int nranks, int nproc, int p, int *lo, int *hi)
{
    if (nproc < 1) nproc = 1;
    int q = nranks / nproc, r = nranks % nproc;
    *lo = p * q + (p < r ? p : r);
    *hi = *lo + q + (p < r);
}
