/*
 * slice_view.c — the data of `mpilens view`'s page from a sliced run
 * (docs/PARALLEL.md): each process feeds its ranks' calls, the messages
 * it pairs (its receivers') and the collective instances it completes to
 * a view, beside the sliced report's profile (an_slice_report_with: the
 * same reads, clock repair rounds included, a fresh view for each read,
 * time 0 the whole run's first call); then each message goes to its
 * sender's owner, which names its send call, and process 0 merges every
 * process's columns, rank by rank, into the view the serial pass gives
 * (analysis/viewdata.c keeps them in an order that does not depend on the
 * order the pass met them).
 */
#include "analysis.h"
#include "exchange.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct hook {
    struct an_view *v;
    struct an_xch *x;
};

/* Before each read: a fresh view, time 0 the run's first call with the clocks of this read. */
static struct an_sink hook_read(void *ctx, struct an_run *run)
{
    struct hook *h = ctx;
    an_view_free(h->v);
    int64_t origin = an_slice_first(run);
    if (!(h->v = an_view_new(run))) h->x->fail(h->x, "mpilens view: out of memory");
    an_view_set_origin(h->v, origin);
    return an_view_sink(h->v);
}

int an_slice_view(struct an_run *run, an_site_namer where, an_site_namer site, int progress,
                  struct an_slice_report *sr, struct an_view **out, int64_t *first)
{
    struct an_xch *x = run->slice->x;
    struct hook h = {NULL, x};
    struct an_slice_hook hk = {&h, hook_read};
    *out = NULL;
    an_slice_report_with(run, where, site, progress, &hk, sr);
    if (sr->why) {
        an_view_free(h.v);
        return 0;
    }
    uint64_t sent = 0;
    int64_t bad = an_view_slice_messages(h.v, x, &sent) != 0;
    void *blk = NULL;
    size_t len = 0;
    if (!bad) bad = an_view_slice_pack(h.v, where, &blk, &len) != 0;
    int64_t org = an_view_counts(h.v)->origin;
    an_view_free(h.v);
    /* the earliest anchor (an_run_span) over every slice */
    int64_t last;
    an_run_span(run, first, &last);
    x->reduce_i64(x, first, 1, AN_XCH_MIN);
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);
    if (bad) x->fail(x, "mpilens view: out of memory building the page's data");
    /* the columns travel deflated (fast level): raw, they are about 15
     * bytes a call, several times the rank files' share of the exchange */
    uLongf zl = compressBound((uLong)len);
    uint8_t *z = malloc(8 + zl);
    uint64_t raw = len;
    bad = !z || compress2(z + 8, &zl, blk, (uLong)len, 1) != Z_OK;
    if (!bad) memcpy(z, &raw, 8);
    free(blk);
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);
    if (bad) x->fail(x, "mpilens view: out of memory packing the page's data");
    void *zall = NULL;
    size_t *lens = calloc((size_t)x->size, sizeof *lens);
    if (!lens || x->gather(x, z, 8 + zl, &zall, lens) != 0) x->fail(x, "mpilens view: the exchange failed");
    free(z);
    void *all = NULL;
    if (x->rank == 0) {   /* inflated, block after block */
        size_t total = 0, off = 0;
        const uint8_t *q = zall;
        for (int p = 0; p < x->size; q += lens[p++]) {
            if (lens[p] < 8) x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
            memcpy(&raw, q, 8);
            total += raw;
        }
        if (!(all = malloc(total + 1))) x->fail(x, "mpilens view: out of memory merging the page's data");
        q = zall;
        for (int p = 0; p < x->size; p++) {
            memcpy(&raw, q, 8);
            uLongf got = (uLongf)raw;
            if (uncompress((Bytef *)all + off, &got, q + 8, (uLong)(lens[p] - 8)) != Z_OK || got != raw)
                x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
            q += lens[p];
            lens[p] = raw;
            off += raw;
        }
    }
    free(zall);
    if (x->rank == 0 && !(*out = an_view_slice_merge(&sr->run, org, all, lens, x->size)))
        x->fail(x, "mpilens view: the processes of the analysis disagree, or out of memory (merging the page's data)");
    free(all);
    free(lens);
    return 0;
}
