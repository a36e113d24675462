/*
 * slice_view.c — the data of `mpilens view`'s page from a sliced run
 * (docs/PARALLEL.md): each process feeds its ranks' calls, the messages
 * it pairs (its receivers') and the collective instances it completes to
 * a view, beside the sliced report's profile (an_slice_report_with: the
 * same reads, clock repair rounds included, a fresh view for each read,
 * time 0 the whole run's first call); then each message goes to its
 * sender's owner, which names its send call; process 0 merges the names
 * and sums of every process, and sends each its map of names; then the
 * calls' and messages' columns go to process 0 in rounds of bounded size,
 * column after column and process after process, which is the order of
 * the page's stream (analysis/viewdata.c keeps them in an order that does
 * not depend on the order the pass met them), and the collective
 * instances, each process's sorted, are merged at process 0 in rounds of
 * bounded size, so process 0 writes the page as they come and never holds
 * them all.
 */
#include "analysis.h"
#include "exchange.h"

#include <stdlib.h>
#include <string.h>

#define PIECE_RECORD 80          /* bytes a round per MPILENS_SLICE_BATCH record (stream.c's crossing sends) */
#define PIECE_DEFAULT 65536

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
                  struct an_slice_report *sr, struct an_view **mine, struct an_view **out, int64_t *first)
{
    struct an_xch *x = run->slice->x;
    struct hook h = {NULL, x};
    struct an_slice_hook hk = {&h, hook_read};
    *out = *mine = NULL;
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
    /* the earliest anchor (an_run_span) over every slice */
    int64_t last;
    an_run_span(run, first, &last);
    x->reduce_i64(x, first, 1, AN_XCH_MIN);
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);
    if (bad) x->fail(x, "mpilens view: out of memory building the page's data");
    /* names and sums at process 0 (not the columns or the instances) */
    void *all = NULL;
    size_t *lens = calloc((size_t)x->size, sizeof *lens), *mlens = calloc((size_t)x->size, sizeof *mlens);
    void **maps = calloc((size_t)x->size, sizeof *maps);
    if (!lens || !mlens || !maps || x->gather(x, blk, len, &all, lens) != 0)
        x->fail(x, "mpilens view: the exchange failed");
    free(blk);
    if (x->rank == 0 && !(*out = an_view_slice_merge(&sr->run, org, all, lens, x->size, maps, mlens)))
        x->fail(x, "mpilens view: the processes of the analysis disagree, or out of memory (merging the page's data)");
    free(all);
    /* each process's names as process 0 numbered them */
    void *map = NULL;
    if (x->alltoall(x, maps, mlens, &map, lens) != 0) x->fail(x, "mpilens view: the exchange failed");
    bad = an_view_slice_remap(h.v, map, lens[0]) != 0;
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);
    if (bad) x->fail(x, "mpilens view: the processes of the analysis disagree, or out of memory (the page's names)");
    for (int p = 0; p < x->size; p++) free(maps[p]);
    free(maps), free(map), free(lens), free(mlens);
    *mine = h.v;
    return 0;
}

int an_slice_view_write(struct an_view *mine, struct an_view *out, struct an_xch *x, const struct an_view_out *o,
                        struct an_view_slice_stats *st)
{
    const char *e = getenv("MPILENS_SLICE_BATCH");   /* tests: small pieces, many rounds */
    long b = e ? strtol(e, NULL, 10) : 0;
    uint64_t batch = (uint64_t)(b > 0 ? b : PIECE_DEFAULT);
    size_t piece = (size_t)batch * PIECE_RECORD;
    /* the instances: at most a batch of the other processes' at process 0 */
    int rc = an_view_slice_write(mine, out, x, o, piece, batch, st);
    an_view_free(mine);
    return rc;
}
