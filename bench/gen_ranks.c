/*
 * gen_ranks.c — a synthetic run directory for benchmarking the tool: valid
 * rank files (format/mlformat.h) of a halo-exchange program, as large as
 * asked, without running MPI.
 *
 *   gen_ranks DIR RANKS EVENTS
 *
 * writes DIR/rank-00000.mlt ... with about EVENTS events in all.  Each rank
 * repeats: Irecv from both neighbours, Isend to both, Waitall (the two
 * receives with their status); every 4th step a blocking Send/Recv ring;
 * every 16th an Allreduce; between steps MPI_Wtime.  Every message matches
 * and every receive ends after its send began, so `mpilens report` finds
 * 0 unmatched and needs no clock repair.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../format/mlformat.h"

enum { R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAITALL, R_ALLREDUCE, R_WTIME, R_COMM_RANK, NR };
static const char *names[NR] = {"MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Isend",
                                "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce", "MPI_Wtime", "MPI_Comm_rank"};

struct out {
    int fd;
    uint8_t chunk[ML_CHUNK_SIZE];
    uint32_t used;                /* bytes of records */
    uint32_t nchunks;
    uint64_t last;                /* start of the previous record (ticks = ns) */
    uint64_t events;
};

static void die(const char *what)
{
    fprintf(stderr, "gen_ranks: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void flush_chunk(struct out *o)
{
    struct ml_chunk *c = (struct ml_chunk *)o->chunk;
    c->magic = ML_CHUNK_MAGIC;
    c->committed = o->used;
    if (write(o->fd, o->chunk, ML_CHUNK_SIZE) != ML_CHUNK_SIZE) die("write");
    o->nchunks++;
}

static void new_chunk(struct out *o, uint64_t base)
{
    memset(o->chunk, 0, sizeof o->chunk);
    struct ml_chunk *c = (struct ml_chunk *)o->chunk;
    c->thread = 0;
    c->tid = 1000;
    c->seq = o->nchunks;
    c->base_ticks = base;
    o->used = 0;
    o->last = base;
}

/* Room for len bytes of records at time t (a new chunk when full). */
static uint8_t *reserve(struct out *o, uint32_t len, uint64_t t)
{
    if (sizeof(struct ml_chunk) + o->used + len > ML_CHUNK_SIZE) {
        flush_chunk(o);
        new_chunk(o, t);
    }
    uint8_t *p = o->chunk + sizeof(struct ml_chunk) + o->used;
    o->used += len;
    return p;
}

static struct ml_rec *rec(struct out *o, uint8_t type, unsigned words, uint16_t routine, uint32_t site, uint64_t t0,
                          uint64_t t1)
{
    struct ml_rec *r = (struct ml_rec *)reserve(o, words * 8, t0);
    memset(r, 0, words * 8);
    r->type = type;
    r->words = (uint8_t)words;
    r->routine = routine;
    r->site = site;
    r->dt = (uint32_t)(t0 - o->last);
    r->dur = (uint32_t)(t1 - t0);
    o->last = t0;
    o->events++;
    return r;
}

static void p2p(struct out *o, uint16_t routine, uint32_t site, uint64_t t0, uint64_t t1, int peer, int tag,
                uint32_t bytes, uint64_t req)
{
    struct ml_rec *r = rec(o, req ? ML_REC_P2P_REQ : ML_REC_P2P, req ? 5 : 4, routine, site, t0, t1);
    struct ml_p2p *p = (struct ml_p2p *)(r + 1);
    p->comm = 0;
    p->dtype = 0;
    p->peer = peer;
    p->tag = tag;
    p->bytes = bytes;
    if (req) memcpy(p + 1, &req, 8);
}

static void gen_rank(const char *dir, int rank, int size, uint64_t steps, uint64_t *events)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%05d.mlt", dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die(path);
    /* header and tables */
    size_t rb = 4;
    for (int i = 0; i < NR; i++) rb += strlen(names[i]) + 1;
    rb = (rb + 4095) & ~(size_t)4095;
    uint64_t routines_off = ML_HEADER_SIZE, modules_off = routines_off + rb;
    uint64_t sites_off = modules_off + 4 * sizeof(struct ml_module);
    uint64_t live_off = sites_off + 64 * 8;
    uint64_t chunks_off = (live_off + sizeof(struct ml_live) + 4095) & ~4095ull;
    uint8_t *tables = calloc(1, chunks_off);
    if (!tables) die("calloc");
    struct ml_header *h = (struct ml_header *)tables;
    memcpy(h->magic, ML_MAGIC, 8);
    h->version = ML_VERSION;
    h->header_size = ML_HEADER_SIZE;
    h->endian = 0x01020304;
    h->chunk_size = ML_CHUNK_SIZE;
    h->routines_off = routines_off;
    h->modules_off = modules_off;
    h->sites_off = sites_off;
    h->live_off = live_off;
    h->chunks_off = chunks_off;
    h->max_modules = 4;
    h->max_sites = 64;
    h->max_threads = 1;
    h->nroutines = NR;
    h->rank = rank;
    h->size = size;
    h->pid = 100000 + rank;
    h->state = ML_STATE_FINALIZED;
    h->thread_level = -1;
    h->job_id = 4242;
    snprintf(h->host, sizeof h->host, "bench-node%d", rank / 32);
    snprintf(h->mpi_impl, sizeof h->mpi_impl, "openmpi");
    snprintf(h->mpi_version, sizeof h->mpi_version, "synthetic (bench/gen_ranks)");
    snprintf(h->exe, sizeof h->exe, "/bench/halo");
    snprintf(h->cmdline, sizeof h->cmdline, "halo");
    h->clock_kind = 2;
    uint64_t t0 = 1000000000ull;                  /* 1 s of uptime */
    h->anchor0_ticks = t0;
    h->anchor0_ns = (int64_t)t0;
    h->sync_init = (struct ml_clock_sync){t0 + 1000, (int64_t)t0 + 1000, 0, 0, 1, 0};
    h->nthreads = 1;
    h->ncomms = 1;
    h->ntypes = 1;
    uint8_t *p = tables + routines_off;
    *(uint32_t *)p = NR;
    p += 4;
    for (int i = 0; i < NR; i++) {
        size_t l = strlen(names[i]) + 1;
        memcpy(p, names[i], l);
        p += l;
    }
    uint64_t *sites = (uint64_t *)(tables + sites_off);
    for (int i = 0; i < 16; i++) sites[i] = 0x401000 + 0x40 * (uint64_t)i;

    struct out *o = calloc(1, sizeof *o);
    if (!o) die("calloc");
    o->fd = fd;
    if (lseek(fd, (off_t)chunks_off, SEEK_SET) < 0) die("lseek");
    new_chunk(o, t0);
    /* definitions: MPI_COMM_WORLD, MPI_DOUBLE */
    {
        uint32_t len = sizeof(struct ml_rec) + sizeof(struct ml_comm_def);
        struct ml_rec *r = (struct ml_rec *)reserve(o, len, t0);
        memset(r, 0, len);
        r->type = ML_REC_COMM;
        r->dur = len;
        struct ml_comm_def *d = (struct ml_comm_def *)(r + 1);
        d->index = 0;
        d->size = (uint32_t)size;
        d->flags = 2;
        d->handle = 0x44000000;
        d->global_id = 1;
        len = sizeof(struct ml_rec) + sizeof(struct ml_type_def);
        r = (struct ml_rec *)reserve(o, len, t0);
        memset(r, 0, len);
        r->type = ML_REC_TYPE;
        r->dur = len;
        struct ml_type_def *t = (struct ml_type_def *)(r + 1);
        t->index = 0;
        t->size = 8;
        t->handle = 0x4c00080b;
        snprintf(t->name, sizeof t->name, "MPI_DOUBLE");
    }
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    uint64_t t = t0;
    rec(o, ML_REC_CALL, 2, R_INIT, 1, t, t + 500);
    rec(o, ML_REC_CALL, 2, R_COMM_RANK, 2, t + 2000, t + 2100);
    t += 10000;
    for (uint64_t s = 0; s < steps; s++) {
        /* a step is 10 us; sends start in the first 2 us, receives end after 4 us */
        uint64_t b = t + s * 10000;
        uint32_t bytes = 8u << (s % 12);         /* 8 B ... 16 KiB */
        p2p(o, R_IRECV, 3, b + 100, b + 300, left, 1, 1u << 16, 0x1000 + 2 * s % 64 + 1);
        p2p(o, R_IRECV, 4, b + 400, b + 600, right, 2, 1u << 16, 0x1000 + 2 * s % 64 + 2);
        p2p(o, R_ISEND, 5, b + 700, b + 900, right, 1, bytes, 0x2000 + 2 * s % 64 + 1);
        p2p(o, R_ISEND, 6, b + 1000, b + 1200, left, 2, bytes, 0x2000 + 2 * s % 64 + 2);
        {
            struct ml_rec *r = rec(o, ML_REC_COMPLETE, 3 + 3 * 4, R_WAITALL, 7, b + 1300, b + 4500);
            uint32_t *n = (uint32_t *)(r + 1);
            n[0] = 4;
            struct ml_done *d = (struct ml_done *)(n + 2);
            d[0] = (struct ml_done){0x1000 + 2 * s % 64 + 1, left, 1, bytes, 0};
            d[1] = (struct ml_done){0x1000 + 2 * s % 64 + 2, right, 2, bytes, 1};
            d[2] = (struct ml_done){0x2000 + 2 * s % 64 + 1, ML_PEER_NONE, ML_PEER_NONE, 0, 2};
            d[3] = (struct ml_done){0x2000 + 2 * s % 64 + 2, ML_PEER_NONE, ML_PEER_NONE, 0, 3};
        }
        if (s % 4 == 3) {   /* blocking ring: everyone sends right at +5 us, receives from the left */
            p2p(o, R_SEND, 8, b + 5000, b + 5300, right, 3, 64, 0);
            p2p(o, R_RECV, 9, b + 5400, b + 6500, left, 3, 64, 0);
        }
        if (s % 16 == 15) {
            struct ml_rec *r = rec(o, ML_REC_COLL, 4, R_ALLREDUCE, 10, b + 7000, b + 8000);
            struct ml_coll *c = (struct ml_coll *)(r + 1);
            c->comm = 0;
            c->dtype = 0;
            c->root = ML_PEER_NONE;
            c->bytes = 8;
        }
        rec(o, ML_REC_CALL, 2, R_WTIME, 11, b + 9000, b + 9050);
    }
    t += steps * 10000;
    rec(o, ML_REC_CALL, 2, R_FINALIZE, 12, t + 1000, t + 3000);
    flush_chunk(o);
    h->nchunks = o->nchunks;
    h->anchor1_ticks = t + 3000;
    h->anchor1_ns = (int64_t)(t + 3000);
    h->sync_final = (struct ml_clock_sync){t + 1500, (int64_t)t + 1500, 0, 0, 1, 0};
    if (pwrite(fd, tables, chunks_off, 0) != (ssize_t)chunks_off) die("pwrite");
    close(fd);
    *events += o->events;
    free(o);
    free(tables);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_ranks DIR RANKS EVENTS\n");
        return 2;
    }
    const char *dir = argv[1];
    int size = atoi(argv[2]);
    long long want = atoll(argv[3]);
    if (size < 2 || want < size * 100LL) {
        fprintf(stderr, "gen_ranks: at least 2 ranks and 100 events per rank\n");
        return 2;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) die(dir);
    /* events per step: 5 + 2/4 + 1/16 + 1 = 6.5625 */
    uint64_t steps = (uint64_t)((double)want / size / 6.5625);
    uint64_t events = 0;
    for (int r = 0; r < size; r++) gen_rank(dir, r, size, steps, &events);
    printf("%llu\n", (unsigned long long)events);
    return 0;
}
