/*
 * view.c — `mpilens view DIR [-o app.html]`: one self-contained HTML page
 * showing a recorded run (message timeline, network load, communication
 * matrix, summary).  The page's source is views/ (HTML, CSS, JavaScript),
 * put into this binary at build time (build/gen/views.c); this file writes
 * it with the run's data inside: a JSON object of names, profile and
 * diagnosis, and the call/message/collective columns of analysis/viewdata.c
 * compressed (raw deflate) and written 7 bits per character (put_text7),
 * which the page inflates with the browser's DecompressionStream.  Nothing is fetched when the page opens.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis.h"
#include "critpath.h"
#include "diag.h"
#include "critpath_report.h"
#include "exchange.h"
#include "json_out.h"
#include "symbols.h"
#include "tool.h"
#include "view.h"

/* build/gen/views.c: the page around the data */
extern const char ml_view_head[], ml_view_tail[];

/* ---- writing ------------------------------------------------------------------ */

/* Text into a <script> element: "</" would end it. */
static void put_script_text(FILE *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<' && i + 1 < n && s[i + 1] == '/') {
            fputs("<\\/", o);
            i++;
        } else {
            putc(s[i], o);
        }
    }
}

/* Bytes as text the page's <script> holds unchanged, 7 bits per character
 * (most significant first, the last one padded with zeros): a character
 * the HTML parser would change or that could end the element (NUL, CR,
 * '<') is written with the next 7 bits as one two-byte character, U+0080
 * + (which << 7 | next); at the end, with 0.  About 8/7 of the bytes
 * (base64: 4/3); views/view.js, text7Bytes, reads it back.  In pieces
 * (t7_put, then t7_end): the text is the same however the bytes come. */
struct text7 {
    FILE *o;
    uint32_t acc;               /* the bits not written yet (nb of them) */
    int nb, pend;               /* pend: a rare character waiting for the next 7 bits, -1 none */
    size_t k;
    char out[8192];
};

static void t7_start(struct text7 *t, FILE *o)
{
    t->o = o;
    t->acc = 0;
    t->nb = t->k = 0;
    t->pend = -1;
}

static void t7_two(struct text7 *t, unsigned cp)
{
    t->out[t->k++] = (char)(0xC0 | cp >> 6);
    t->out[t->k++] = (char)(0x80 | (cp & 63));
}

static void t7_char(struct text7 *t, unsigned c)
{
    if (t->k + 2 > sizeof t->out) {
        fwrite(t->out, 1, t->k, t->o);
        t->k = 0;
    }
    if (t->pend >= 0) {
        t7_two(t, 0x80 + ((unsigned)t->pend << 7 | c));
        t->pend = -1;
    } else if (c == 0 || c == '\r' || c == '<') {
        t->pend = c == 0 ? 0 : c == '\r' ? 1 : 2;
    } else {
        t->out[t->k++] = (char)c;
    }
}

static void t7_put(struct text7 *t, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        t->acc = t->acc << 8 | p[i];
        t->nb += 8;
        while (t->nb >= 7) {
            t->nb -= 7;
            t7_char(t, (t->acc >> t->nb) & 127);
            t->acc &= (1u << t->nb) - 1;
        }
    }
}

static void t7_end(struct text7 *t)
{
    if (t->nb > 0) t7_char(t, (t->acc << (7 - t->nb)) & 127);
    t->nb = 0;
    if (t->pend >= 0) {
        if (t->k + 2 > sizeof t->out) {
            fwrite(t->out, 1, t->k, t->o);
            t->k = 0;
        }
        t7_two(t, 0x80 + ((unsigned)t->pend << 7));
        t->pend = -1;
    }
    fwrite(t->out, 1, t->k, t->o);
    t->k = 0;
}

static void put_text7(FILE *o, const uint8_t *p, size_t n)
{
    struct text7 *t = malloc(sizeof *t);
    if (!t) {
        fputc(0, o);            /* a page that does not decode, rather than a wrong one (never: 8 KiB) */
        return;
    }
    t7_start(t, o);
    t7_put(t, p, n);
    t7_end(t);
    free(t);
}

/* The page's data as it comes (an_view_out): the columns, each after its
 * length (LEB128), deflated (raw, as pack_bufs) and written as text7 as
 * the deflated bytes come, so nothing of it is held but zlib's window. */
struct pagedata {
    z_stream z;
    int zok;
    struct text7 t;
    size_t packed, raw;
    uint8_t zb[65536];
};

static int pd_deflate(struct pagedata *d, const uint8_t *p, size_t n, int finish)
{
    d->z.next_in = (Bytef *)p;
    d->z.avail_in = (uInt)n;
    for (;;) {
        d->z.next_out = d->zb;
        d->z.avail_out = sizeof d->zb;
        int zr = deflate(&d->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (zr == Z_STREAM_ERROR) return -1;
        size_t got = sizeof d->zb - d->z.avail_out;
        t7_put(&d->t, d->zb, got);
        d->packed += got;
        if (finish ? zr == Z_STREAM_END : (d->z.avail_in == 0 && d->z.avail_out > 0)) return 0;
    }
}

static int pd_put(void *ctx, const uint8_t *p, size_t n)
{
    struct pagedata *d = ctx;
    d->raw += n;
    /* in pieces: avail_in is 32 bits */
    for (size_t off = 0; off < n; off += 1u << 30)
        if (pd_deflate(d, p + off, n - off < (1u << 30) ? n - off : 1u << 30, 0) != 0) return -1;
    return 0;
}

static int pd_col(void *ctx, int c, uint64_t len)
{
    (void)c;
    uint8_t hdr[10];
    size_t hl = 0;
    do {
        hdr[hl++] = (uint8_t)((len & 0x7f) | (len >= 0x80 ? 0x80 : 0));
        len >>= 7;
    } while (len);
    return pd_put(ctx, hdr, hl);
}

static struct pagedata *pd_start(FILE *o)
{
    struct pagedata *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    if (deflateInit2(&d->z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(d);
        return NULL;
    }
    t7_start(&d->t, o);
    return d;
}

/* The stream ended (ok) or dropped: its deflated and raw lengths; 0 or -1. */
static int pd_end(struct pagedata *d, int ok, size_t *packed, size_t *raw)
{
    if (ok && pd_deflate(d, NULL, 0, 1) != 0) ok = 0;
    t7_end(&d->t);
    *packed = d->packed;
    *raw = d->raw;
    deflateEnd(&d->z);
    free(d);
    return ok ? 0 : -1;
}

/* Deflate n bytes of p (finish: end the stream) into the growing *buf. */
static int deflate_more(z_stream *z, const uint8_t *p, size_t n, int finish, uint8_t **buf, size_t *len, size_t *cap)
{
    z->next_in = (Bytef *)p;
    z->avail_in = (uInt)n;
    for (;;) {
        if (*cap - *len < 65536) {
            size_t nc = *cap ? *cap * 2 : 1 << 20;
            uint8_t *nb = realloc(*buf, nc);
            if (!nb) return -1;
            *buf = nb;
            *cap = nc;
        }
        z->next_out = *buf + *len;
        z->avail_out = (uInt)(*cap - *len);
        int zr = deflate(z, finish ? Z_FINISH : Z_NO_FLUSH);
        *len = *cap - z->avail_out;
        if (zr == Z_STREAM_ERROR) return -1;
        if (finish ? zr == Z_STREAM_END : (z->avail_in == 0 && z->avail_out > 0)) return 0;
    }
}

/* Buffers (n of them), each preceded by its length (LEB128), deflated (raw). */
static int pack_bufs(const uint8_t *const *p, const size_t *lens, int n, uint8_t **out, size_t *outlen, size_t *rawlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    uint8_t *buf = NULL;
    size_t nb = 0, cap = 0;
    int rc = 0;
    *rawlen = 0;
    for (int c = 0; c < n && rc == 0; c++) {
        uint8_t hdr[10];
        size_t len = lens[c], hl = 0;
        uint64_t l = len;
        do {
            hdr[hl++] = (uint8_t)((l & 0x7f) | (l >= 0x80 ? 0x80 : 0));
            l >>= 7;
        } while (l);
        rc = deflate_more(&z, hdr, hl, 0, &buf, &nb, &cap);
        /* in pieces: avail_in is 32 bits */
        for (size_t off = 0; rc == 0 && off < len; off += 1u << 30)
            rc = deflate_more(&z, p[c] + off, len - off < (1u << 30) ? len - off : 1u << 30, 0, &buf, &nb, &cap);
        *rawlen += hl + len;
    }
    if (rc == 0) rc = deflate_more(&z, NULL, 0, 1, &buf, &nb, &cap);
    deflateEnd(&z);
    if (rc != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outlen = nb;
    return 0;
}

void view_json_names(FILE *o, const struct an_view *v)
{
    const struct an_view_counts *c = an_view_counts(v);
    fputs("\"sites\":[", o);
    for (unsigned i = 0; i < c->sites; i++) {
        if (i) putc(',', o);
        json_str(o, an_view_site(v, i));
    }
    fputs("],\"types\":[", o);
    for (unsigned i = 0; i < c->types; i++) {
        if (i) putc(',', o);
        json_str(o, an_view_type(v, i));
    }
    putc(']', o);
}

int view_pack(const struct an_view *v, uint8_t **out, size_t *outlen, size_t *rawlen)
{
    const uint8_t *p[AN_VIEW_NCOLS];
    size_t lens[AN_VIEW_NCOLS];
    for (int c = 0; c < AN_VIEW_NCOLS; c++) p[c] = an_view_column(v, c, &lens[c]);
    return pack_bufs(p, lens, AN_VIEW_NCOLS, out, outlen, rawlen);
}

/* ---- the overview (--serve) ------------------------------------------------------ */

struct lebbuf {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static void leb(struct lebbuf *b, uint64_t v)
{
    if (b->n + 10 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    while (v >= 0x80) {
        b->p[b->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->n++] = (uint8_t)v;
}

static void lebs(struct lebbuf *b, int64_t v) { leb(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

/* The overview's columns (views/view.js, OV_COLS): per rank and bin the kind
 * (+1) and its ns; per message entry sender, receiver, count, bytes, largest
 * size, first send start (s: difference to the previous entry's), time to
 * its completion (s). */
#define OV_NCOLS 9
static int pack_overview(const struct an_view_overview *o, uint8_t **out, size_t *outlen, size_t *rawlen)
{
    struct lebbuf b[OV_NCOLS];
    memset(b, 0, sizeof b);
    size_t rb = (size_t)o->ranks * o->bins;
    for (size_t i = 0; i < rb; i++) {
        leb(&b[0], o->kind[i]);
        leb(&b[1], o->kind[i] ? (uint64_t)o->best[i] : 0);
    }
    int64_t prev = 0;
    for (size_t i = 0; i < o->n; i++) {
        leb(&b[2], (uint64_t)o->src[i]);
        leb(&b[3], (uint64_t)o->dst[i]);
        leb(&b[4], o->count[i]);
        leb(&b[5], o->bytes[i]);
        leb(&b[6], o->max_bytes[i]);
        lebs(&b[7], o->ts[i] - prev);
        prev = o->ts[i];
        lebs(&b[8], o->lat[i]);
    }
    const uint8_t *p[OV_NCOLS];
    size_t lens[OV_NCOLS];
    int rc = 0;
    for (int c = 0; c < OV_NCOLS; c++) {
        if (b[c].oom) rc = -1;
        p[c] = b[c].p;
        lens[c] = b[c].n;
    }
    if (rc == 0) rc = pack_bufs(p, lens, OV_NCOLS, out, outlen, rawlen);
    for (int c = 0; c < OV_NCOLS; c++) free(b[c].p);
    return rc;
}

/* "prof_rank_parts":[[t0,...,tK],...]: per rank of an_profile_ranks, the
 * time (ns) of each of the K = min(8, routines) first routines of
 * an_profile_routines and, last, of all the others, summed from the call
 * sites' per-rank times. */
static void put_rank_parts(FILE *o, const struct an_run *run, const struct an_profile *prof)
{
    unsigned nro, nrk, nsi;
    const struct an_routine_prof *ro = an_profile_routines(prof, &nro);
    const struct an_rank_prof *rp = an_profile_ranks(prof, &nrk);
    const struct an_site_prof *sp = an_profile_sites(prof, &nsi);
    unsigned K = nro < 8 ? nro : 8;
    int64_t *t = calloc((size_t)(nrk ? nrk : 1) * (K + 1), sizeof *t);
    int *slot = malloc((size_t)(run->size > 0 ? run->size : 1) * sizeof *slot);
    if (!t || !slot) {   /* the page falls back to the calls' spans */
        free(t);
        free(slot);
        return;
    }
    for (int r = 0; r < run->size; r++) slot[r] = -1;
    for (unsigned i = 0; i < nrk; i++)
        if (rp[i].rank >= 0 && rp[i].rank < run->size) slot[rp[i].rank] = (int)i;
    for (unsigned s = 0; s < nsi; s++) {
        unsigned k = 0;
        while (k < K && ro[k].name != sp[s].name) k++;
        for (unsigned j = 0; j < sp[s].nranks; j++) {
            int r = sp[s].per_rank[j].rank;
            if (r >= 0 && r < run->size && slot[r] >= 0)
                t[(size_t)slot[r] * (K + 1) + k] = an_sadd(t[(size_t)slot[r] * (K + 1) + k], sp[s].per_rank[j].st.total);
        }
    }
    fputs(",\"prof_rank_parts\":[", o);
    for (unsigned i = 0; i < nrk; i++) {
        fputs(i ? ",[" : "[", o);
        for (unsigned k = 0; k <= K; k++) fprintf(o, "%s%" PRId64, k ? "," : "", t[(size_t)i * (K + 1) + k]);
        putc(']', o);
    }
    putc(']', o);
    free(t);
    free(slot);
}

/* "critical_path": the runtime path of `report` (its default options and
 * window): value, split, end rank, and its segments (at most
 * VIEW_CP_MAX; "segments_total" says how many there were) with their
 * times in the page's time base (ns after origin, the earliest call);
 * null when not computed, {"empty":true} for an empty window. */
#define VIEW_CP_MAX 100000
static void put_critpath(FILE *o, const struct an_run *run, const struct an_cp_result *r, int64_t origin)
{
    fputs(",\"critical_path\":", o);
    if (!r) {
        fputs("null", o);
        return;
    }
    if (r->to <= r->from) {
        fputs("{\"empty\":true}", o);
        return;
    }
    const struct an_cp_path *p = &r->m[AN_CP_RUNTIME];
    fprintf(o, "{\"runtime_ns\":%" PRId64 ",\"comm_ns\":%" PRId64 ",\"comp_ns\":%" PRId64 ",\"end_rank\":%d"
               ",\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"complete\":%s,\"segments_total\":%u,\"segments\":[",
            p->path, r->rt_comm, r->rt_comp, p->end_rank, an_wsub(r->from, origin), an_wsub(r->to, origin),
            r->unfinished || r->undecided ? "false" : "true", r->nseg);
    char what[1200], where[1100];
    for (unsigned i = 0; i < r->nseg && i < VIEW_CP_MAX; i++) {
        const struct an_cp_segment *s = &r->seg[i];
        cp_seg_words(run, s, what, sizeof what, where, sizeof where);
        fprintf(o, "%s{\"rank\":%d,\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"to_rank\":%d,\"what\":", i ? "," : "",
                s->rank, an_wsub(s->from, origin), an_wsub(s->to, origin), s->to_rank);
        json_str(o, what);
        fputs(",\"site\":", o);
        json_str(o, where);
        putc('}', o);
    }
    fputs("]}", o);
}

/* The run's metadata as one JSON object (names, profile, diagnosis).
 * sliced: the failure diagnosis is dg, made in slices (NULL: none could
 * be made); else it is made here from every rank file. */
static void put_meta(FILE *o, const char *dir, struct an_run *run, const struct an_view *v,
                     const struct an_profile *prof, const struct an_result *res, size_t packed, size_t raw,
                     const struct an_view_overview *ov, size_t ov_packed, uint64_t cap, const struct an_cp_result *cp,
                     int64_t first, int sliced, const struct an_diag *dg)
{
    const struct an_view_counts *c = an_view_counts(v);
    fputs("{\"mpilens_view\":1,\"dir\":", o);
    json_str(o, dir);
    fputs(",\"exe\":", o);
    json_str(o, run->exe);
    fputs(",\"mpi\":", o);
    json_str(o, run->mpi_version);
    fprintf(o, ",\"ranks\":%d,\"ranks_read\":%u,\"rank_files\":%u", run->size, run->n, run->nfiles);
    fprintf(o, ",\"calls\":%" PRIu64 ",\"calls_repeated\":%" PRIu64 ",\"messages\":%" PRIu64 ",\"bytes\":%" PRIu64
               ",\"colls\":%" PRIu64 ",\"origin_ns\":%" PRId64 ",\"last_ns\":%" PRId64 ",\"packed\":%zu,\"raw\":%zu"
               ",\"msg_no_send\":%" PRIu64 ",\"msg_no_recv\":%" PRIu64,
            c->calls, c->calls_repeated, c->messages, c->bytes, c->colls, c->origin, c->last, packed, raw,
            c->msg_no_send, c->msg_no_recv);
    fprintf(o, ",\"shown_calls\":%" PRIu64 ",\"shown_messages\":%" PRIu64 ",\"shown_colls\":%" PRIu64, c->shown_calls,
            c->shown_messages, c->shown_colls);
    if (ov)
        fprintf(o, ",\"overview\":{\"ranks\":%u,\"bins\":%u,\"bin_ns\":%.17g,\"entries\":%zu,\"msg_bin_ns\":%.17g"
                   ",\"max_lat\":%" PRId64 ",\"max_coll\":%" PRId64 ",\"packed\":%zu,\"cap\":%" PRIu64 "}",
                ov->ranks, ov->bins, ov->bin_ns, ov->n, ov->msg_bin_ns, ov->max_lat, ov->max_coll, ov_packed, cap);
    fprintf(o, ",\"diag_origin_ns\":%" PRId64, first == INT64_MAX ? c->origin : first);
    const struct an_match_stats *st = &res->stats;
    fprintf(o, ",\"match\":{\"unmatched_sends\":%" PRIu64 ",\"unmatched_receives\":%" PRIu64
               ",\"pending_receives\":%" PRIu64 ",\"coll_incomplete\":%" PRIu64 ",\"repaired\":%" PRIu64 "}",
            st->unmatched_sends, st->unmatched_recvs, st->pending_recvs, st->coll_incomplete, res->repair_steps);
    fputs(",\"rank_list\":[", o);
    for (unsigned i = 0; i < run->n; i++) {
        const struct an_rank *r = &run->ranks[i];
        fprintf(o, "%s{\"rank\":%d,\"host\":", i ? "," : "", r->rank);
        /* a sliced run's ranks read elsewhere: from the slices */
        const char *host = r->f ? mlr_host(r->f) : run->slice && run->slice->host[r->rank] ? run->slice->host[r->rank] : "";
        json_str(o, host);
        fprintf(o, ",\"pid\":%d}", r->f ? mlr_header(r->f)->pid : an_view_pid(v, r->rank));
    }
    fputs("],\"names\":[", o);
    for (unsigned i = 0; i < run->nnames; i++) {
        if (i) putc(',', o);
        json_str(o, run->names[i]);
    }
    fputs("],", o);
    view_json_names(o, v);
    fputs(",\"comms\":[", o);
    for (unsigned i = 0; i < run->ncomms; i++) {
        const struct an_comm *cm = &run->comms[i];
        char name[160];
        an_comm_name(run, i, name, sizeof name);
        fprintf(o, "%s{\"name\":", i ? "," : "");
        json_str(o, name);
        fprintf(o, ",\"size\":%u,\"world\":%d,\"members\":", cm->size, cm->world);
        if (cm->members && cm->size <= 16384) {
            putc('[', o);
            for (uint32_t k = 0; k < cm->size; k++) fprintf(o, "%s%d", k ? "," : "", cm->members[k]);
            putc(']', o);
        } else {
            fputs("null", o);
        }
        putc('}', o);
    }
    fputs("],\"problems\":[", o);
    int k = 0;
    for (const char *p = an_run_problem(run, NULL); p; p = an_run_problem(run, p)) {
        if (k++) putc(',', o);
        json_str(o, p);
    }
    fputs("]", o);
    /* the profile of `report`, for the summary */
    unsigned n;
    const struct an_rank_prof *rp = an_profile_ranks(prof, &n);
    fputs(",\"prof_ranks\":[", o);
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "%s{\"rank\":%d,\"app\":%" PRId64 ",\"mpi\":%" PRId64 ",\"calls\":%" PRIu64 "}", i ? "," : "",
                rp[i].rank, rp[i].app, rp[i].mpi, rp[i].calls);
    const struct an_routine_prof *ro = an_profile_routines(prof, &n);
    fputs("],\"prof_routines\":[", o);
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "%s{\"name\":%u,\"calls\":%" PRIu64 ",\"total\":%" PRId64 ",\"max\":%" PRId64 ",\"bytes\":%" PRIu64
                   ",\"outside\":%d}",
                i ? "," : "", ro[i].name, ro[i].all.calls, ro[i].all.total, ro[i].all.max, ro[i].all.bytes,
                ro[i].name < run->nnames &&
                    (run->name_role[ro[i].name] == AN_INIT || run->name_role[ro[i].name] == AN_FINALIZE));
    const struct an_site_prof *sp = an_profile_sites(prof, &n);
    fputs("],\"prof_sites\":[", o);
    for (unsigned i = 0; i < n && i < 50; i++) {
        fprintf(o, "%s{\"where\":", i ? "," : "");
        json_str(o, sp[i].where ? sp[i].where : "(unknown)");
        fprintf(o, ",\"name\":%u,\"calls\":%" PRIu64 ",\"total\":%" PRId64 ",\"bytes\":%" PRIu64 "}", sp[i].name,
                sp[i].all.calls, sp[i].all.total, sp[i].all.bytes);
    }
    uint64_t cnt[AN_SIZE_BUCKETS], by[AN_SIZE_BUCKETS];
    an_profile_sizes(prof, cnt, by);
    fputs("],\"sizes\":[", o);
    for (int i = 0; i < AN_SIZE_BUCKETS; i++) fprintf(o, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", cnt[i], by[i]);
    putc(']', o);
    /* per rank (as prof_ranks), the time of each of the first 8 routines
     * (as prof_routines) and of the others: the summary's bars, the
     * profile's time (a run of repeated polls counts its estimate, not the
     * span from its first call to its last; docs/REPORT.md) */
    put_rank_parts(o, run, prof);
    put_critpath(o, run, cp, c->origin);
    fputs(",\"diagnosis\":", o);
    /* the failure diagnosis of `report --json --failures` */
    char *d = NULL;
    size_t dl = 0;
    FILE *m = open_memstream(&d, &dl);
    int dr = !m ? -1 : sliced ? diag_json_diag(dir, dg, m, 1) : diag_json(dir, m, 1);
    if (m) fclose(m);
    if (dr >= 0 && d && dl) fwrite(d, 1, dl, o);
    else fputs("null", o);
    free(d);
    fputs("}", o);
}

/* The page into o.  sv (--serve): the page holds the run's overview (bins
 * per rank, merged messages) instead of its calls and messages, its
 * Content-Security-Policy lets it connect to its own server, and sv
 * receives what window queries need. */
struct view_pre {               /* a sliced run's data, from its processes (an_slice_view) */
    struct an_profile *prof;
    struct an_view *v;          /* names, sums and collective instances */
    const struct an_result *res;
    int64_t first;              /* the earliest anchor (an_run_span) */
    const struct an_diag *diag; /* the failure diagnosis, made in slices (NULL: none could be made) */
    /* the calls' and messages' columns to o (collective: called once,
     * o NULL where the page is not written) */
    int (*write)(void *ctx, const struct an_view_out *o);
    void *ctx;
};

static int view_write(FILE *o, const char *dir, struct an_run *run, int progress, int critpath, uint64_t *msgs,
                      size_t *page, struct view_served *sv, const struct view_pre *pre)
{
    struct an_profile *prof = pre ? pre->prof : an_profile_new(run);
    struct an_view *v = pre ? pre->v : an_view_new(run);
    struct an_result res;
    memset(&res, 0, sizeof res);
    int64_t first = pre ? pre->first : 0, last;
    if (!pre) an_run_span(run, &first, &last);
    int rc = -1;
    uint8_t *ovp = NULL;
    size_t ovl = 0, ovraw = 0;
    const struct an_view_overview *ov = NULL;
    struct an_cp *cp = NULL;
    if (!prof || !v) goto out;
    if (pre) goto write;
    if (sv) {
        /* served: the page holds the overview only; windows come on demand */
        unsigned R = run->size > 0 ? (unsigned)run->size : 1, B = 8192;
        while (B > 256 && (uint64_t)B * R > (1u << 22)) B /= 2;
        an_view_window(v, INT64_MIN, 1, 0, 0);
        if (an_view_want_overview(v, B, 1u << 18) != 0) goto out;
    }
    if (sv) {
        /* resume points for the windows: one every 16 K events, thinned
         * (every other one dropped) to at most 256 of 48 MiB in all.
         * MPILENS_VIEW_MARK_EVERY=N (tests): every N events; 0: none. */
        uint64_t every = 16384;
        const char *ev = getenv("MPILENS_VIEW_MARK_EVERY");
        if (ev && *ev) every = strtoull(ev, NULL, 10);
        if (every && !(sv->marks = an_marks_new(every, 256, (size_t)48 << 20))) goto out;
    }
    /* the critical path (report's default options and window) rides on the
     * final pass, the one with the final clocks, beside the page's data */
    struct an_cp_opts cpo;
    an_cp_opts_default(&cpo);
    /* the profile too, with the final clocks, as the report's (and a sliced
     * view's) profile */
    struct an_tee tee, tee2;
    struct an_sink ps = an_profile_sink(prof), vs = an_view_sink(v);
    if (critpath) {
        if (!(cp = an_cp_new(run, &cpo))) goto out;
        tee.a = vs;
        tee.b = an_cp_sink(cp);
        vs = an_tee_sink(&tee);
    }
    tee2.a = ps;
    tee2.b = vs;
    vs = an_tee_sink(&tee2);
    if (an_analyse_marked(run, NULL, &vs, progress, &res, sv ? sv->marks : NULL) != 0) goto out;
    if (cp && an_cp_finish(cp) != 0) goto out;
    /* sites with their call chains (mpilens run -k N): "inner < caller < ..." */
    /* the columns stay per rank: an_view_write streams them into the page */
    if (an_profile_finish(prof, sym_stack) != 0 || an_view_finish_parts(v, sym_stack) != 0) goto out;
write:
    if (sv) {
        if (!(ov = an_view_overview(v)) || pack_overview(ov, &ovp, &ovl, &ovraw) != 0) goto out;
        sv->origin = an_view_counts(v)->origin;
        sv->reach = ov->max_lat > ov->max_coll ? ov->max_lat : ov->max_coll;
    }
    if (sv) {
        const char *csp = strstr(ml_view_head, "connect-src 'none'");
        if (!csp) goto out;
        fwrite(ml_view_head, 1, (size_t)(csp - ml_view_head), o);
        fputs("connect-src 'self'", o);
        fputs(csp + strlen("connect-src 'none'"), o);
    } else {
        fputs(ml_view_head, o);
    }
    /* the data first, written as it is made; the metadata after it, with
     * the data's length (the page reads both once loaded) */
    fputs("<script type=\"application/octet-stream\" id=\"mpilens-data\">", o);
    struct pagedata *d = pd_start(o);
    struct an_view_out vo = {d, pd_col, pd_put};
    int wr = pre ? pre->write(pre->ctx, d ? &vo : NULL) : d ? an_view_write(v, &vo) : -1;
    size_t plen = 0, raw = 0;
    if (d && pd_end(d, wr == 0, &plen, &raw) != 0) wr = -1;
    if (wr != 0) goto out;
    fputs("</script>\n", o);
    if (ovp) {
        fputs("<script type=\"application/octet-stream\" id=\"mpilens-overview\">", o);
        put_text7(o, ovp, ovl);
        fputs("</script>\n", o);
    }
    char *meta = NULL;
    size_t mlen = 0;
    FILE *m = open_memstream(&meta, &mlen);
    if (!m) goto out;
    put_meta(m, dir, run, v, prof, pre ? pre->res : &res, plen, raw, ov, ovl, sv ? sv->cap : 0,
             cp ? an_cp_result(cp) : NULL, first, pre != NULL, pre ? pre->diag : NULL);
    fclose(m);
    fputs("<script type=\"application/json\" id=\"mpilens-meta\">", o);
    put_script_text(o, meta, mlen);
    fputs("</script>\n", o);
    fputs(ml_view_tail, o);
    free(meta);
    *msgs = an_view_counts(v)->messages;
    *page = plen;
    rc = 0;
out:
    free(ovp);
    an_result_free(&res);
    an_cp_free(cp);
    if (v && !pre) an_view_free(v);
    if (prof && !pre) an_profile_free(prof);
    return rc;
}

/* An unnamed file in the directory of path (O_TMPFILE), given path's
 * name by page_name once the page is whole: a job that dies on the way
 * leaves nothing.  -1 where the file system makes none. */
static int page_unnamed(const char *path)
{
#ifdef O_TMPFILE
    char d[4096];
    snprintf(d, sizeof d, "%s", path);
    char *sl = strrchr(d, '/');
    if (!sl) snprintf(d, sizeof d, ".");
    else if (sl == d) d[1] = 0;
    else *sl = 0;
    return open(d, O_TMPFILE | O_WRONLY, 0644);
#else
    (void)path;
    return -1;
#endif
}

static int page_name(int fd, const char *path)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, p, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

/* The file the page of outpath is written into, named outpath only once the
 * page is whole (a view killed on the way leaves no page that looks
 * complete): an unnamed file (*how 1), else, where the file system makes
 * none, outpath.partial-PID beside it (*how 2, its name in tmp).  Fails
 * (-1, errno) where outpath exists already or cannot be created. */
static int page_open(const char *outpath, int *how, char *tmp, size_t ntmp)
{
    int fd = open(outpath, O_WRONLY | O_CREAT | O_EXCL, 0644);   /* the name is free and can be made */
    if (fd < 0) return -1;
    close(fd);
    unlink(outpath);
    if ((fd = page_unnamed(outpath)) >= 0) {
        *how = 1;
        return fd;
    }
    snprintf(tmp, ntmp, "%s.partial-%ld", outpath, (long)getpid());
    *how = 2;
    return open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
}

/* The page of run into fd (1: stdout; else page_open's file, how and tmp
 * as it said, named outpath at the end): 0, 1 (cannot write) or 2 (over
 * --max-size).  Written as it is made, never held in memory: to stdout
 * through an unnamed temporary file, so that a page over --max-size is
 * never written. */
static int view_to_file(int fd, int how, const char *tmp, const char *outpath, const char *dir, struct an_run *run,
                        int progress, int critpath, double max_mb, const struct view_pre *pre)
{
    FILE *o = fd == 1 ? tmpfile() : fdopen(fd, "w");
    uint64_t msgs = 0;
    size_t page = 0;
    int rc = o ? view_write(o, dir, run, progress, critpath, &msgs, &page, NULL, pre) : -1;
    if (!o && pre) pre->write(pre->ctx, NULL);   /* the other processes still send their pieces */
    if (o && (fflush(o) != 0 || ferror(o))) rc = -1;   /* ferror: a write that failed before (a full disk) */
    off_t pl = rc == 0 ? ftello(o) : 0;
    int too_big = rc == 0 && (double)pl > max_mb * 1e6;
    if (rc == 0 && !too_big && fd == 1) {
        char buf[65536];
        size_t n;
        rewind(o);
        while ((n = fread(buf, 1, sizeof buf, o)) > 0)
            if (fwrite(buf, 1, n, stdout) != n) rc = -1;
        if (ferror(o) || fflush(stdout) != 0) rc = -1;
    }
    int exists = 0;
    if (rc == 0 && !too_big && how == 1 && page_name(fileno(o), outpath) != 0) {
        exists = errno == EEXIST;
        rc = -1;
    }
    if (o && fclose(o) != 0 && fd != 1) rc = -1;
    if (!o && fd > 1) close(fd);
    if (how == 2) {   /* the page under its name once whole; the partial one goes */
        if (rc == 0 && !too_big && link(tmp, outpath) != 0) {
            exists = errno == EEXIST;
            rc = -1;
        }
        unlink(tmp);
    }
    if (too_big) {
        fprintf(stderr, "mpilens view: the page would be %.*f MB, over --max-size %g MB: serve it with "
                        "'mpilens view --serve %s', or raise --max-size\n", pl < 10000000 ? 2 : 0, pl / 1e6, max_mb, dir);
        return 2;
    }
    if (exists) {
        fprintf(stderr, "mpilens view: cannot create %s: %s (an existing file is never overwritten; remove it or "
                        "give -o)\n", outpath, strerror(EEXIST));
    } else if (rc != 0) {
        fprintf(stderr, "mpilens view: %s: cannot write the page (out of memory or disk full)\n", outpath);
    } else if (progress && fd != 1) {
        fprintf(stderr, "mpilens view: wrote %s (%" PRIu64 " messages on %d ranks); open it in a browser\n", outpath,
                msgs, run->size);
    }
    return rc == 0 ? 0 : 1;
}

struct job_write {               /* a sliced view's columns, sent once (an_slice_view_write) */
    struct an_view *mine, *merged;
    struct an_xch *x;
    struct an_view_slice_stats st;
};

static int job_columns(void *ctx, const struct an_view_out *o)
{
    struct job_write *j = ctx;
    if (!j->mine) return -1;    /* sent already */
    int rc = an_slice_view_write(j->mine, j->merged, j->x, o, &j->st);
    j->mine = NULL;
    return rc;
}

/* `mpirun -n P mpilens view --no-critical-path DIR`: every process reads
 * its slice (an_slice_view), process 0 writes the page; where the slices
 * cannot give the serial page, process 0 makes it alone (-2). */
static int view_job(const char *dir, const char *outpath, int progress, double max_mb)
{
    struct an_xch *x = tool_xch;
    int64_t bad = 0;
    int fd = -1;
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (x->rank == 0)
            fprintf(stderr, "mpilens view: %s: %s (give the directory the run wrote, e.g. mpilens-app-1234/)\n", dir,
                    strerror(errno));
        bad = 1;
    } else if (x->rank == 0 && (fd = strcmp(outpath, "-") == 0 ? 1 : open(outpath, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0) {
        fprintf(stderr, "mpilens view: cannot create %s: %s%s\n", outpath, strerror(errno),
                errno == EEXIST ? " (an existing file is never overwritten; remove it or give -o)" : "");
        bad = 1;
    } else if (fd > 1) {
        /* it can be created; created again when the page is made: a job
         * that fails on the way (MPI_Abort) leaves no empty file */
        close(fd);
        unlink(outpath);
        fd = -1;
    }
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);   /* every process stops, or none */
    if (bad) return 1;
    struct an_run run;
    if (an_run_open_slice(dir, x, &run) != 0) {
        const char *p = an_run_problem(&run, NULL);
        if (x->rank == 0)
            fprintf(stderr, "mpilens view: %s: not a run directory (%s)\n", dir, p ? p : "no readable rank file");
        an_run_close(&run);
        return 1;
    }
    if (getenv("MPILENS_SLICE_LOG")) tool_slice_log("view", &run, x->rank, x->size);   /* tests */
    /* the failure diagnosis: each process its own rank files, process 0 the job */
    struct an_diag dg;
    int dl = an_diag_load_slice(&run, sym_site, sym_addr, &dg);
    if (getenv("MPILENS_SLICE_LOG")) tool_diag_slice_log("view", &run, x->rank, x->size);   /* tests */
    struct an_slice_report sr;
    struct an_view *v = NULL, *mine = NULL;
    int64_t first = 0;
    an_slice_view(&run, sym_stack, sym_site, progress && x->rank == 0, &sr, &mine, &v, &first);
    if (sr.why) {
        if (x->rank == 0 && dl == 0) an_diag_free(&dg);
        an_run_close(&run);
        sym_cleanup();
        if (x->rank == 0)
            fprintf(stderr, "mpilens view: note: %s, so process 0 reads every rank (docs/PARALLEL.md)\n", sr.why);
        return -2;
    }
    struct job_write jw = {mine, v, x, {0, 0, 0, 0}};
    int rc = 0;
    if (x->rank == 0) {
        if (getenv("MPILENS_SLICE_LOG") && sr.res.passes > 1)   /* tests: the clocks were repaired in slices */
            fprintf(stderr, "mpilens view: clocks repaired across slices in %u round%s\n", sr.res.passes - 1,
                    sr.res.passes == 2 ? "" : "s");
        for (const char *p = an_run_problem(&run, NULL); p; p = an_run_problem(&run, p))
            if (progress) fprintf(stderr, "mpilens view: warning: %s\n", p);
        struct view_pre pre = {sr.prof, v, &sr.res, first, dl == 0 ? &dg : NULL, job_columns, &jw};
        /* the page is written while the processes send their columns */
        int how = 0;
        char tmp[4200];
        if (fd != 1) fd = page_open(outpath, &how, tmp, sizeof tmp);
        if (fd < 0) {
            fprintf(stderr, "mpilens view: cannot create %s: %s%s\n", outpath, strerror(errno),
                    errno == EEXIST ? " (an existing file is never overwritten; remove it or give -o)" : "");
            rc = 1;
        } else {
            rc = view_to_file(fd, how, tmp, outpath, dir, &sr.run, progress, 0, max_mb, &pre);
        }
        if (jw.mine) job_columns(&jw, NULL);   /* not written: the others still send theirs */
        if (getenv("MPILENS_SLICE_LOG")) {   /* tests: process 0 got the columns and instances in rounds */
            fprintf(stderr, "mpilens view: columns to process 0 in %" PRIu64 " round%s, at most %" PRIu64
                            " bytes at once\n", jw.st.rounds, jw.st.rounds == 1 ? "" : "s", jw.st.held);
            fprintf(stderr, "mpilens view: collective instances merged at process 0 in %" PRIu64 " round%s, at most %"
                            PRIu64 " of the other processes' at once\n", jw.st.coll_rounds,
                    jw.st.coll_rounds == 1 ? "" : "s", jw.st.coll_held);
        }
        an_view_free(v);
        an_slice_report_free(&sr);
        if (dl == 0) an_diag_free(&dg);
    } else {
        job_columns(&jw, NULL);
    }
    an_run_close(&run);
    sym_cleanup();
    return rc;
}

/* ---- the verb ----------------------------------------------------------------- */

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens view DIR [-o FILE.html] [--max-size MB] [--no-critical-path]\n"
            "       mpilens view --serve DIR [--port N] [--window-cap N] [--no-critical-path]\n\n"
            "Writes one self-contained HTML page showing run directory DIR (or one rank\n"
            "file): a message timeline (a bar per rank, MPI calls as boxes, messages as\n"
            "lines, zoom and pan), the network load between ranks over a chosen interval, the\n"
            "communication matrix and a summary (time per rank and routine, top call sites,\n"
            "message sizes, the failure diagnosis), with report's critical path drawn on\n"
            "the timeline and summed up in the summary.  It opens from a file in Chromium or\n"
            "Firefox and fetches nothing: scripts, styles and data are inside.\n\n"
            "  -o, --output F   where to write (default: <run>.html); an existing file is\n"
            "                   never overwritten\n"
            "  --max-size MB    the largest page to write (default 200); a bigger run stops\n"
            "                   with a hint to use --serve\n"
            "  --serve          serve the page from a web server on 127.0.0.1 (a random\n"
            "                   token in the URL, printed on stdout), for a run of any\n"
            "                   size: the page starts from the run's overview and, when\n"
            "                   zoomed in, fetches the window's calls and messages, read\n"
            "                   from the rank files on demand (/TOKEN/data?from=NS&to=NS);\n"
            "                   Ctrl+C stops it (exit status 0)\n"
            "  --port N         the port for --serve (default: any free one)\n"
            "  --window-cap N   --serve: the most calls + messages in one window's answer\n"
            "                   (default 1000000); a busier window stays summarised\n"
            "  --no-critical-path  leave the critical path out (faster on big runs; under\n"
            "                   mpirun -n P, each process reads only its share of the\n"
            "                   rank files)\n"
            "  -q, --quiet      no progress line\n"
            "  -h, --help       this text\n");
}

int cmd_view(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
        {"serve", no_argument, 0, 'S'},        {"help", no_argument, 0, 'h'},
        {"max-size", required_argument, 0, 'M'}, {"port", required_argument, 0, 'P'},
        {"window-cap", required_argument, 0, 'W'}, {"no-critical-path", no_argument, 0, 'N'}, {0, 0, 0, 0},
    };
    const char *outpath = NULL;
    int progress = 1, c, serve = 0, port = 0, critpath = 1;
    double max_mb = 200;
    uint64_t cap = 1000000;
    char *end;
    int serve_only = 0;   /* --port, --window-cap: options of --serve */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': outpath = optarg; break;
        case 'q': progress = 0; break;
        case 'S': serve = 1; break;
        case 'N': critpath = 0; break;
        case 'M':
            max_mb = strtod(optarg, &end);
            if (end == optarg || *end || !(max_mb > 0)) {
                fprintf(stderr, "mpilens view: --max-size %s: give megabytes, e.g. --max-size 500\n", optarg);
                return 2;
            }
            break;
        case 'P':
            port = (int)strtol(optarg, &end, 10);
            if (end == optarg || *end || port < 0 || port > 65535) {
                fprintf(stderr, "mpilens view: --port %s: give a port number (0: any free one)\n", optarg);
                return 2;
            }
            serve_only = 'P';
            break;
        case 'W':
            cap = strtoull(optarg, &end, 10);
            if (end == optarg || *end || cap == 0 || optarg[0] == '-') {
                fprintf(stderr, "mpilens view: --window-cap %s: give a number of calls and messages, e.g. 500000\n", optarg);
                return 2;
            }
            serve_only = 'W';
            break;
        case 'h': help(stdout); return 0;
        default: tool_bad_option("view", argc, argv); return 2;
        }
    }
    if (serve_only && !serve) {
        fprintf(stderr, "mpilens view: %s is for the page served by --serve; a page written to a file has no server\n",
                serve_only == 'P' ? "--port" : "--window-cap");
        return 2;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mpilens view: give one run directory, e.g. 'mpilens view mpilens-app-1234/ -o app.html'\n");
        return 2;
    }
    if (serve && outpath) {
        fprintf(stderr, "mpilens view: --serve writes no file; leave out -o\n");
        return 2;
    }
    int job = 0;
    if (tool_xch->size > 1) {
        /* an MPI job of several processes (docs/PARALLEL.md): each process
         * reads its slice and process 0 writes the page, where the slices
         * give the serial page; otherwise process 0 reads every rank and
         * the others wait for the job's end.  A server would keep the
         * others spinning in MPI for as long as it serves: refused. */
        if (serve) {
            if (tool_xch->rank == 0)
                fprintf(stderr, "mpilens view: --serve is one process: run 'mpilens view --serve DIR' without "
                                "mpirun\n");
            return 2;
        }
        if (critpath) {
            if (tool_xch->rank != 0) return 0;
            if (progress)
                fprintf(stderr, "mpilens view: note: %d analysis processes, but the critical path across slices is "
                                "not yet written (--no-critical-path leaves it out): process 0 reads every rank "
                                "(docs/PARALLEL.md)\n", tool_xch->size);
        } else {
            job = 1;
        }
    }
    const char *dir = argv[optind];
    char def[4096];
    if (!outpath) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", dir);
        size_t l = strlen(tmp);
        while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
        const char *b = strrchr(tmp, '/');
        snprintf(def, sizeof def, "%s.html", b ? b + 1 : tmp);
        outpath = def;
    }
    if (job) {
        int rc = view_job(dir, outpath, progress, max_mb);
        if (rc != -2) return rc;
        if (tool_xch->rank != 0) return 0;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "mpilens view: %s: %s (give the directory the run wrote, e.g. mpilens-app-1234/)\n", dir,
                strerror(errno));
        return 1;
    }
    struct an_run run;
    if (an_run_open(dir, &run) != 0) {
        const char *p = an_run_problem(&run, NULL);
        fprintf(stderr, "mpilens view: %s: not a run directory (%s)\n", dir, p ? p : "no readable rank file");
        an_run_close(&run);
        return 1;
    }
    for (const char *p = an_run_problem(&run, NULL); p; p = an_run_problem(&run, p))
        if (progress) fprintf(stderr, "mpilens view: warning: %s\n", p);
    if (serve) {
        char *pg = NULL;
        size_t pl = 0, packed = 0;
        uint64_t msgs = 0;
        struct view_served sv = {0, 0, cap, NULL};
        FILE *m = open_memstream(&pg, &pl);
        int rc = m ? view_write(m, dir, &run, progress, critpath, &msgs, &packed, &sv, NULL) : -1;
        if (m && fclose(m) != 0) rc = -1;
        if (rc != 0) {
            fprintf(stderr, "mpilens view: %s: cannot build the page (out of memory?)\n", dir);
            an_marks_free(sv.marks);
            free(pg);
            an_run_close(&run);
            return 1;
        }
        rc = view_serve(dir, pg, pl, &run, &sv, port);
        an_marks_free(sv.marks);
        free(pg);
        an_run_close(&run);
        sym_cleanup();
        return rc;
    }
    int how = 0;
    char tmp[4200];
    int fd = strcmp(outpath, "-") == 0 ? 1 : page_open(outpath, &how, tmp, sizeof tmp);
    if (fd < 0) {
        fprintf(stderr, "mpilens view: cannot create %s: %s%s\n", outpath, strerror(errno),
                errno == EEXIST ? " (an existing file is never overwritten; remove it or give -o)" : "");
        an_run_close(&run);
        return 1;
    }
    int rc = view_to_file(fd, how, tmp, outpath, dir, &run, progress, critpath, max_mb, NULL);
    an_run_close(&run);
    sym_cleanup();
    return rc;
}
