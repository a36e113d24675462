/*
 * make_seeds.c — writes the fuzzer's seed corpus (tests/fuzz/corpus/): small
 * valid rank files with every record type, compact tables and 4 KiB chunks
 * so the fuzzer starts from inputs that reach deep into the reader and the
 * analysis.  Run by hand when the format changes:
 *
 *   cc -Iformat -o /tmp/make_seeds tests/fuzz/make_seeds.c && /tmp/make_seeds tests/fuzz/corpus
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlformat.h"

#define CS 4096

static const char *names[] = {"MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
                              "MPI_Waitall", "MPI_Allreduce", "MPI_Send_init", "MPI_Recv_init", "MPI_Start",
                              "MPI_Sendrecv", "MPI_Probe", "MPI_Mprobe", "MPI_Wait", "MPI_Bcast", "MPI_Cancel"};
enum { INIT, FIN, SEND, RECV, ISEND, IRECV, WAITALL, ALLRED, SINIT, RINIT, START, SENDRECV, PROBE, MPROBE, WAIT, BCAST,
       CANCEL, NNAMES };

struct file {
    uint8_t buf[1 << 16];
    size_t chunks_off;
    unsigned nchunks;
    uint8_t *chunk;        /* current chunk */
    uint32_t used;
    uint64_t last;
};

static struct ml_header *H(struct file *f) { return (struct ml_header *)f->buf; }

static void chunk_begin(struct file *f, uint32_t thread, uint64_t base)
{
    f->chunk = f->buf + f->chunks_off + (size_t)f->nchunks * CS;
    struct ml_chunk *c = (struct ml_chunk *)f->chunk;
    c->magic = ML_CHUNK_MAGIC;
    c->thread = thread;
    c->tid = 500 + thread;
    c->seq = 0;
    c->base_ticks = base;
    f->used = 0;
    f->last = base;
    f->nchunks++;
    H(f)->nchunks = f->nchunks;
}

static void *put(struct file *f, uint32_t len)
{
    uint8_t *p = f->chunk + sizeof(struct ml_chunk) + f->used;
    memset(p, 0, len);
    f->used += len;
    ((struct ml_chunk *)f->chunk)->committed = f->used;
    return p;
}

static struct ml_rec *rec(struct file *f, uint8_t type, unsigned words, uint16_t routine, uint64_t t, uint32_t dur)
{
    struct ml_rec *r = put(f, words * 8);
    r->type = type;
    r->words = (uint8_t)words;
    r->routine = routine;
    r->site = 1 + routine % 8;
    r->dt = (uint32_t)(t - f->last);
    r->dur = dur;
    f->last = t;
    return r;
}

static void p2p(struct file *f, uint16_t rt, uint64_t t, int peer, int tag, uint32_t bytes, uint64_t req, uint16_t comm)
{
    struct ml_rec *r = rec(f, req ? ML_REC_P2P_REQ : ML_REC_P2P, req ? 5 : 4, rt, t, 100);
    struct ml_p2p *p = (struct ml_p2p *)(r + 1);
    *p = (struct ml_p2p){comm, 0, peer, tag, bytes};
    if (req) memcpy(p + 1, &req, 8);
}

static void done(struct file *f, uint8_t type, uint16_t rt, uint64_t t, int n, const uint64_t *reqs, int src, int tag)
{
    struct ml_rec *r = rec(f, type, 3 + 3 * (unsigned)n, rt, t, type == ML_REC_COMPLETE_MORE ? 0 : 300);
    if (type == ML_REC_COMPLETE_MORE) r->dt = 0;
    uint32_t *c = (uint32_t *)(r + 1);
    c[0] = (uint32_t)n;
    struct ml_done *d = (struct ml_done *)(c + 2);
    for (int i = 0; i < n; i++) d[i] = (struct ml_done){reqs[i], src, tag, 8, i};
}

static void def_comm(struct file *f, uint32_t index, uint32_t flags, uint64_t gid, int n, const int32_t *members)
{
    uint32_t len = (uint32_t)(sizeof(struct ml_rec) + sizeof(struct ml_comm_def) + 4 * (size_t)n + 7) & ~7u;
    struct ml_rec *r = put(f, len);
    r->type = ML_REC_COMM;
    r->dur = len;
    struct ml_comm_def *d = (struct ml_comm_def *)(r + 1);
    d->index = index;
    d->size = flags & 2 ? (uint32_t)H(f)->size : (uint32_t)n;
    d->flags = flags;
    d->handle = 0x100 + index;
    d->global_id = gid;
    memcpy(d + 1, members, 4 * (size_t)n);
}

static void header(struct file *f, int rank, int size, const char *impl)
{
    memset(f, 0, sizeof *f);
    struct ml_header *h = H(f);
    memcpy(h->magic, ML_MAGIC, 8);
    h->version = ML_VERSION;
    h->header_size = sizeof *h;
    h->endian = 0x01020304;
    h->chunk_size = CS;
    size_t o = (sizeof *h + 7) & ~(size_t)7;
    h->routines_off = o;
    uint8_t *p = f->buf + o;
    *(uint32_t *)p = NNAMES;
    p += 4;
    for (int i = 0; i < NNAMES; i++) {
        size_t l = strlen(names[i]) + 1;
        memcpy(p, names[i], l);
        p += l;
    }
    o = ((size_t)(p - f->buf) + 7) & ~(size_t)7;
    h->modules_off = o;
    struct ml_module *m = (struct ml_module *)(f->buf + o);
    *m = (struct ml_module){0x400000, 0x500000, 0, "/seed/app"};
    o += sizeof *m;
    h->sites_off = o;
    for (int i = 0; i < 8; i++) ((uint64_t *)(f->buf + o))[i] = 0x401000 + 16 * (uint64_t)i;
    o += 8 * 8;
    h->live_off = o;
    struct ml_live *l = (struct ml_live *)(f->buf + o);
    l[0].used = 1;
    l[0].calls = 9;
    l[0].tid = 500;
    o += 2 * sizeof *l;
    h->chains_off = o;                   /* call chains two frames deep (mpilens run -k 2) */
    h->chain_depth = 2;
    h->max_chains = 8;
    for (int i = 0; i < 8; i++) {
        ((uint64_t *)(f->buf + o))[2 * i] = 0x401000 + 16 * (uint64_t)i;
        ((uint64_t *)(f->buf + o))[2 * i + 1] = i & 1 ? 0x402000 + 16 * (uint64_t)i : 0;
    }
    o += 8 * 2 * 8;
    h->chunks_off = f->chunks_off = o;
    h->max_modules = 1;
    h->max_sites = 8;
    h->max_threads = 2;
    h->nroutines = NNAMES;
    h->rank = rank;
    h->size = size;
    h->pid = 4000 + rank;
    h->state = ML_STATE_FINALIZED;
    h->job_id = 7;
    h->nmodules = 1;
    h->nthreads = 2;
    snprintf(h->host, sizeof h->host, "seed");
    snprintf(h->mpi_impl, sizeof h->mpi_impl, "%s", impl);
    snprintf(h->mpi_version, sizeof h->mpi_version, "seed MPI");
    snprintf(h->exe, sizeof h->exe, "/seed/app");
    h->clock_kind = 1;
    h->anchor0_ticks = 1000;
    h->anchor0_ns = 1000;
    h->anchor1_ticks = 3001000;
    h->anchor1_ns = 1001000;   /* 3 ticks per ns */
    h->sync_init = (struct ml_clock_sync){2000, 1000, 0, 0, 1, 0};
    h->sync_final = (struct ml_clock_sync){2900000, 990000, 150, 0, 1, 0};
}

static void save(struct file *f, const char *dir, const char *name, size_t cut)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *o = fopen(path, "wb");
    if (!o) {
        perror(path);
        exit(1);
    }
    size_t len = f->chunks_off + (size_t)f->nchunks * CS;
    if (cut && cut < len) len = cut;
    fwrite(f->buf, 1, len, o);
    fclose(o);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    static struct file f;
    int32_t pair[2] = {0, 1};
    /* one rank talking to itself: everything matches within the file */
    header(&f, 0, 1, "openmpi");
    chunk_begin(&f, 0, 3000);
    def_comm(&f, 0, 2, 1, 0, NULL);
    def_comm(&f, 1, 0, 77, 1, pair);
    {
        struct ml_rec *r = put(&f, sizeof(struct ml_rec) + sizeof(struct ml_type_def));
        r->type = ML_REC_TYPE;
        r->dur = sizeof(struct ml_rec) + sizeof(struct ml_type_def);
        struct ml_type_def *t = (struct ml_type_def *)(r + 1);
        *t = (struct ml_type_def){0, 8, 0x55, "MPI_DOUBLE"};
    }
    uint64_t t = 3000;
    rec(&f, ML_REC_CALL, 2, INIT, t += 10, 5000);
    p2p(&f, SEND, t += 6000, 0, 5, 8, 0, 0);
    p2p(&f, RECV, t += 200, 0, 5, 8, 0, 0);
    p2p(&f, IRECV, t += 200, -1, -1, 64, 0x10, 0);
    p2p(&f, ISEND, t += 200, 0, 6, 8, 0x20, 0);
    uint64_t two[2] = {0x10, 0x20};
    done(&f, ML_REC_COMPLETE, WAITALL, t += 200, 1, two, 0, 6);
    done(&f, ML_REC_COMPLETE_MORE, WAITALL, t, 1, two + 1, ML_PEER_NONE, ML_PEER_NONE);
    {
        struct ml_rec *r = put(&f, 16);   /* absolute time */
        r->type = ML_REC_TIME;
        r->words = 2;
        t += 5000000000ull;
        r->dt = (uint32_t)t;
        r->dur = (uint32_t)(t >> 32);
        f.last = t;
    }
    p2p(&f, SINIT, t += 100, 0, 9, 16, 0x30, 1);
    p2p(&f, RINIT, t += 100, 0, 9, 16, 0x40, 1);
    uint64_t pr[2] = {0x40, 0x30};
    done(&f, ML_REC_COMPLETE, START, t += 100, 2, pr, ML_PEER_NONE, ML_PEER_NONE);
    done(&f, ML_REC_COMPLETE, WAITALL, t += 100, 2, pr, 0, 9);
    {
        struct ml_rec *r = rec(&f, ML_REC_SENDRECV, 6, SENDRECV, t += 100, 100);
        struct ml_p2p *p = (struct ml_p2p *)(r + 1);
        p[0] = (struct ml_p2p){0, 0, 0, 11, 4};
        p[1] = (struct ml_p2p){0, 0, 0, 11, 4};
    }
    p2p(&f, PROBE, t += 100, 0, 12, 4, 0, 0);
    p2p(&f, SEND, t += 100, -2, 12, 4, 0, 0);   /* MPI_PROC_NULL */
    {
        struct ml_rec *r = rec(&f, ML_REC_COLL, 4, ALLRED, t += 100, UINT32_MAX);
        struct ml_coll *c = (struct ml_coll *)(r + 1);
        *c = (struct ml_coll){1, 0, ML_PEER_NONE, 8, 8};
        struct ml_rec *q = put(&f, 16);         /* long duration */
        q->type = ML_REC_LONGDUR;
        q->words = 2;
        q->dt = 7000000;
        q = put(&f, 16);                        /* error code */
        q->type = ML_REC_RESULT;
        q->words = 2;
        q->dt = 13;
    }
    rec(&f, ML_REC_CALL, 2, CANCEL, t += 8000000, 10);
    rec(&f, ML_REC_CALL, 2, FIN, t += 100, 1000);
    chunk_begin(&f, 1, 4000);                    /* a second thread */
    p2p(&f, MPROBE, 9000, 0, 13, 4, 0, 0);
    p2p(&f, SEND, 9500, 0, 13, 4, 0, 0);
    save(&f, dir, "self.mlt", 0);
    save(&f, dir, "self-cut.mlt", f.chunks_off + 900);   /* inside the first chunk's records */

    /* rank 1 of 2 under MPICH's constants, messages to and from rank 0 */
    header(&f, 1, 2, "mpich");
    chunk_begin(&f, 0, 3000);
    def_comm(&f, 0, 2, 1, 0, NULL);
    def_comm(&f, 1, 1, 99, 2, pair);             /* inter-communicator: 1 + 1 */
    {
        /* after the world's definition (48 bytes) and this one's record header */
        struct ml_comm_def *d = (struct ml_comm_def *)(f.chunk + sizeof(struct ml_chunk) + 48 + 16);
        d->size = 1;
        d->remote_size = 1;
    }
    t = 3000;
    rec(&f, ML_REC_CALL, 2, INIT, t += 10, 5000);
    p2p(&f, RECV, t += 6000, 0, 1, 8, 0, 0);
    p2p(&f, IRECV, t += 100, -2, 3, 8, 0x11, 0); /* MPI_ANY_SOURCE in MPICH */
    p2p(&f, IRECV, t += 100, -1, 3, 8, 0x12, 0); /* MPI_PROC_NULL in MPICH */
    uint64_t w[2] = {0x11, 0x12};
    done(&f, ML_REC_COMPLETE, WAITALL, t += 100, 2, w, 0, 3);
    p2p(&f, SEND, t += 100, 0, 2, 8, 0, 1);
    {
        struct ml_rec *r = rec(&f, ML_REC_COLL, 4, BCAST, t += 100, 100);
        struct ml_coll *c = (struct ml_coll *)(r + 1);
        *c = (struct ml_coll){0, 0, 0, 8, 8};
    }
    rec(&f, ML_REC_CALL, 2, FIN, t += 100, 1000);
    save(&f, dir, "mpich-rank1.mlt", 0);
    return 0;
}
