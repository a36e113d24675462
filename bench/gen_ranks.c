/*
 * gen_ranks.c — a synthetic run directory for benchmarking the tool: valid
 * rank files (format/mlformat.h) of a halo-exchange program, as large as
 * asked, without running MPI.
 *
 *   gen_ranks DIR RANKS EVENTS [HEAVY:FACTOR | colls | halves]
 *
 * writes DIR/rank-00000.mlt ... with about EVENTS events in all.  Each rank
 * repeats: Irecv from both neighbours, Isend to both, Waitall (the two
 * receives with their status); every 4th step a blocking Send/Recv ring;
 * every 16th an Allreduce; between steps MPI_Wtime.  Every message matches
 * and every receive ends after its send began, so `mpilens report` finds
 * 0 unmatched and needs no clock repair.  HEAVY:FACTOR: ranks 0 to
 * HEAVY - 1 make FACTOR times the calls (2 to 10), the extra ones MPI_Wtime
 * between steps (a skewed run, for the slices balanced by events); EVENTS
 * then counts the steps as if every rank were light.  colls: a step is
 * only an MPI_Allreduce on MPI_COMM_WORLD and an MPI_Wtime (a run of
 * collectives, for the instances of a communicator spanning slices).
 * halves: the same on two communicators, ranks 0 to RANKS/2 - 1 and the
 * rest (RANKS even; two slices at P = 2, each completing its own
 * instances).
 *
 *   gen_ranks --live DIR RANKS SCENARIO [PID]
 *
 * writes rank files for the live view (`mpilens top`, bench/top_bench): no
 * trace, only the header, the tables, one chunk of communicator definitions
 * and the live slots, as a job caught at this instant.  Times are
 * CLOCK_MONOTONIC of this host (clock kind 2), so ages are right for a
 * reader on this host.  Processes that must look alive use PID (default: the
 * parent, e.g. the calling shell), ones that must look dead a pid beyond
 * pid_max.  Call sites resolve to "solver.c:LINE" through this program's own
 * line table (the site_* functions at the end of this file): build it with -g
 * and keep it while the files are read.  SCENARIO:
 *   odd-recv     every rank in MPI_Allreduce (solver.c:10), 2.0-3.0 s, except
 *                the last: in MPI_Recv from 0 tag 7 (solver.c:20) for 5 s
 *   odd-compute  the same, the last rank computing after MPI_Bcast (solver.c:30)
 *   half-recv    even ranks in MPI_Allreduce, odd ranks in MPI_Recv from the
 *                next odd rank: half the members never arrive (a ring)
 *   chain        rank r in MPI_Recv from r + 1, the last rank computing: no
 *                deadlock, but only the last rank can go on at first (the
 *                slowest case for a check that sweeps the ranks in order)
 *   mixed        varied states by rank: most in MPI_Waitall, every 4th in
 *                MPI_Bcast on a 64-rank communicator, every 8th computing,
 *                every 16th polling MPI_Test, every 64th with 4 threads (3 in
 *                MPI), and per 1024: one died, one exited, one finalized, one
 *                without a file (not started), one without an MPI call yet
 *   states       a small job with one rank in each state (RANKS >= 12): in
 *                MPI_Barrier, computing, polling, finalized, exited (status 3),
 *                died (no process), died (signal 11), not started, no call
 *                yet, 3 threads (2 in MPI), on another host (MPI_Recv: stale
 *                after a while), in MPI_Allreduce
 *   late         even ranks in MPI_Barrier, odd ones in MPI_Recv from 0; the
 *                even ranks and rank 1 began their call 30 s from now (as a
 *                call that began while a reader read the files, after it
 *                looked at its clock)
 *   old          every rank finalized 1200-1201 s ago (a job that ended minutes ago)
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

static int colls_only;          /* "colls": a run of MPI_Allreduce only */
static int halves;              /* "halves": on a communicator of half the ranks */

static void gen_rank(const char *dir, int rank, int size, uint64_t steps, unsigned extra, uint64_t *events)
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
    h->ncomms = halves ? 2 : 1;
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
        if (halves) {   /* index 1: this rank's half of the ranks */
            uint32_t hs = (uint32_t)size / 2, lo = rank < (int)hs ? 0 : hs;
            len = sizeof(struct ml_rec) + sizeof(struct ml_comm_def) + hs * 4;
            r = (struct ml_rec *)reserve(o, len, t0);
            memset(r, 0, len);
            r->type = ML_REC_COMM;
            r->dur = len;
            d = (struct ml_comm_def *)(r + 1);
            d->index = 1;
            d->size = hs;
            d->handle = 0x84000001;
            d->global_id = 2 + (lo != 0);
            int32_t *m = (int32_t *)(d + 1);
            for (uint32_t k = 0; k < hs; k++) m[k] = (int32_t)(lo + k);
        }
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
        if (colls_only) {   /* "colls": an MPI_Allreduce and an MPI_Wtime a step */
            struct ml_rec *r = rec(o, ML_REC_COLL, 4, R_ALLREDUCE, 10, b + 7000, b + 8000);
            struct ml_coll *c = (struct ml_coll *)(r + 1);
            c->comm = (uint16_t)halves;
            c->dtype = 0;
            c->root = ML_PEER_NONE;
            c->bytes = 8;
            rec(o, ML_REC_CALL, 2, R_WTIME, 11, b + 9000, b + 9050);
            continue;
        }
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
        for (unsigned i = 0; i < extra; i++) rec(o, ML_REC_CALL, 2, R_WTIME, 11, b + 9100 + 15 * i, b + 9105 + 15 * i);
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

static int gen_live(int argc, char **argv);

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--live")) return gen_live(argc, argv);
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: gen_ranks DIR RANKS EVENTS [HEAVY:FACTOR | colls | halves]\n"
                        "       gen_ranks --live DIR RANKS SCENARIO [PID]\n");
        return 2;
    }
    int heavy = 0, factor = 1;
    if (argc == 5 && !strcmp(argv[4], "colls")) colls_only = 1;
    else if (argc == 5 && !strcmp(argv[4], "halves")) colls_only = halves = 1;
    else if (argc == 5 && (sscanf(argv[4], "%d:%d", &heavy, &factor) != 2 || heavy < 0 || factor < 2 || factor > 10)) {
        fprintf(stderr, "gen_ranks: HEAVY:FACTOR, e.g. 64:10 (ranks 0-63 make 10 times the calls; FACTOR 2 to 10)\n");
        return 2;
    }
    const char *dir = argv[1];
    int size = atoi(argv[2]);
    long long want = atoll(argv[3]);
    if (size < 2 || want < size * 100LL || (halves && size % 2)) {
        fprintf(stderr, "gen_ranks: at least 2 ranks (an even number for halves) and 100 events per rank\n");
        return 2;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) die(dir);
    /* events per step: 5 + 2/4 + 1/16 + 1 = 6.5625 */
    uint64_t steps = (uint64_t)((double)want / size / (colls_only ? 2 : 6.5625));
    uint64_t events = 0;
    /* a heavy rank's extra calls per step: (FACTOR - 1) x 6.5625, at most 59 (they fit 9.1-9.99 us) */
    unsigned extra = (unsigned)((factor - 1) * 6.5625 + 0.5);
    for (int r = 0; r < size; r++) gen_rank(dir, r, size, steps, r < heavy ? extra : 0, &events);
    printf("%llu\n", (unsigned long long)events);
    return 0;
}

/* ---- live mode: rank files of a job caught at one instant ------------------ */

enum { L_INIT, L_FINALIZE, L_SEND, L_RECV, L_ALLREDUCE, L_WAITALL, L_TEST, L_BCAST, L_BARRIER, L_IRECV, NL };
static const char *lnames[NL] = {"MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Allreduce",
                                 "MPI_Waitall", "MPI_Test", "MPI_Bcast", "MPI_Barrier", "MPI_Irecv"};

/* call sites: functions on known lines of "solver.c" (end of this file) */
int site_allreduce(void), site_recv(void), site_bcast(void), site_waitall(void), site_test(void),
    site_send(void), site_barrier(void), site_irecv(void);
enum { S_ALLREDUCE = 1, S_RECV, S_BCAST, S_WAITALL, S_TEST, S_SEND, S_BARRIER, S_IRECV, NS };

#define LMAXT 4

struct lslot {
    int used;
    int routine, site;
    int32_t peer, tag;
    uint32_t comm;
    double start, end, idle;    /* seconds ago; < 0: never (0 ticks) */
    uint64_t aux;
};

struct lrank {
    int present;                /* 0: no file (not started) */
    int state;                  /* ML_STATE_* */
    int dead;                   /* the process is gone (pid beyond pid_max) */
    int remote;                 /* on another host */
    int late;                   /* its times are 30 s later: its calls began after the reader looked */
    uint32_t fail_kind;
    int32_t fail_signo, fail_code;
    unsigned nthreads;
    struct lslot t[LMAXT];
};

static void in_call(struct lslot *s, int routine, int site, int32_t peer, int32_t tag, uint32_t comm,
                    double started, uint64_t aux)
{
    *s = (struct lslot){1, routine, site, peer, tag, comm, started, started + 0.01, -1, aux};
}

static void computing(struct lslot *s, int routine, int site, double ended)
{
    *s = (struct lslot){1, routine, site, ML_PEER_NONE, 0, 0, ended + 0.001, ended, -1, 0};
}

static void scenario(const char *sc, int r, int n, struct lrank *k)
{
    memset(k, 0, sizeof *k);
    k->present = 1;
    k->state = ML_STATE_RUNNING;
    k->nthreads = 1;
    struct lslot *t = k->t;
    double spread = (double)(r % 100) / 100.0;     /* 0 .. 0.99 s */
    if (!strncmp(sc, "odd-", 4)) {
        if (r != n - 1) in_call(t, L_ALLREDUCE, S_ALLREDUCE, ML_PEER_NONE, 0, 0, 2.0 + spread, 42);
        else if (!strcmp(sc, "odd-recv")) in_call(t, L_RECV, S_RECV, 0, 7, 0, 5.0, 0);
        else computing(t, L_BCAST, S_BCAST, 5.0);
        return;
    }
    if (!strcmp(sc, "half-recv")) {
        if (r % 2 == 0 || n < 2) in_call(t, L_ALLREDUCE, S_ALLREDUCE, ML_PEER_NONE, 0, 0, 2.0 + spread, 42);
        else in_call(t, L_RECV, S_RECV, (r + 2) % (n & ~1), 7, 0, 5.0, 0);
        return;
    }
    if (!strcmp(sc, "chain")) {
        if (r < n - 1) in_call(t, L_RECV, S_RECV, r + 1, 7, 0, 5.0, 0);
        else computing(t, L_BCAST, S_BCAST, 5.0);
        return;
    }
    if (!strcmp(sc, "old")) {   /* a job that ended minutes ago: every rank finalized 1200-1201 s ago */
        k->state = ML_STATE_FINALIZED;
        computing(t, L_FINALIZE, S_BARRIER, 1200.0 + spread);
        return;
    }
    if (!strcmp(sc, "late")) {
        /* calls that began while the reader read the files, after its
         * clock reading: even ranks all in MPI_Barrier, odd ones in
         * MPI_Recv from 0, rank 1 of them late too */
        if (r % 2 == 0) {
            in_call(t, L_BARRIER, S_BARRIER, ML_PEER_NONE, 0, 0, 0.5, 3);
            k->late = 1;
        } else {
            in_call(t, L_RECV, S_RECV, 0, 7, 0, 2.0 + spread, 0);
            k->late = r == 1;
        }
        return;
    }
    if (!strcmp(sc, "states")) {
        switch (r) {
        case 0: in_call(t, L_BARRIER, S_BARRIER, ML_PEER_NONE, 0, 0, 1.5, 3); break;
        case 1: computing(t, L_ALLREDUCE, S_ALLREDUCE, 0.5); break;
        case 2: /* MPI_Test returning flag = false over and over: caught inside
                 * one, 0.5 ms after the previous one (a file cannot show a
                 * thread between two polls for long: after ML_WORK_GAP_NS it
                 * computes) */
            *t = (struct lslot){1, L_TEST, S_TEST, ML_PEER_NONE, 0, 0, 0.2, 4.0, 0.2005, 0x77};
            break;
        case 3:
            k->state = ML_STATE_FINALIZED;
            computing(t, L_FINALIZE, S_BARRIER, 2.0);
            break;
        case 4:
            k->state = ML_STATE_EXITED;
            k->fail_kind = ML_FAIL_EXIT;
            k->fail_code = 3;
            computing(t, L_ALLREDUCE, S_ALLREDUCE, 2.5);
            break;
        case 5:
            k->dead = 1;
            in_call(t, L_RECV, S_RECV, 1, 7, 0, 3.0, 0);
            break;
        case 6:
            k->dead = 1;
            k->fail_kind = ML_FAIL_SIGNAL;
            k->fail_signo = 11;
            computing(t, L_BCAST, S_BCAST, 1.0);
            break;
        case 7: k->present = 0; break;
        case 8: k->t[0].used = 0; break;
        case 9:
            k->nthreads = 3;
            in_call(&t[0], L_RECV, S_RECV, 0, 9, 0, 2.2, 0);
            in_call(&t[1], L_SEND, S_SEND, 10, 9, 0, 1.1, 0);
            computing(&t[2], L_IRECV, S_IRECV, 0.7);
            break;
        case 10:
            k->remote = 1;
            in_call(t, L_RECV, S_RECV, 9, 5, 0, 4.0, 0);
            break;
        default: in_call(t, L_ALLREDUCE, S_ALLREDUCE, ML_PEER_NONE, 0, 0, 0.8, 5); break;
        }
        return;
    }
    /* mixed */
    switch (r % 1024) {
    case 5:
        k->dead = 1;
        in_call(t, L_RECV, S_RECV, (r + n - 1) % n, 3, 0, 9.0, 0);
        return;
    case 6:
        k->state = ML_STATE_EXITED;
        k->fail_kind = ML_FAIL_EXIT;
        k->fail_code = 1;
        computing(t, L_WAITALL, S_WAITALL, 7.0);
        return;
    case 7:
        k->state = ML_STATE_FINALIZED;
        computing(t, L_FINALIZE, S_BARRIER, 6.0);
        return;
    case 8: k->present = 0; return;
    case 9: return;   /* used = 0: no MPI call yet */
    }
    if (r % 64 == 10) {
        k->nthreads = LMAXT;
        in_call(&t[0], L_RECV, S_RECV, (r + n - 1) % n, 1, 0, 1.0 + spread, 0);
        in_call(&t[1], L_SEND, S_SEND, (r + 1) % n, 1, 0, 0.5 + spread, 0);
        computing(&t[2], L_IRECV, S_IRECV, 0.2);
        in_call(&t[3], L_WAITALL, S_WAITALL, 0, 0, 0, 0.1 + spread, 2);
    } else if (r % 16 == 1) {
        *t = (struct lslot){1, L_TEST, S_TEST, ML_PEER_NONE, 0, 0, 0.05, 3.0 + spread, 0.0505, 0x99};
    } else if (r % 8 == 2) {
        computing(t, L_ALLREDUCE, S_ALLREDUCE, 0.3 + spread);
    } else if (r % 4 == 3) {
        in_call(t, L_BCAST, S_BCAST, 0, 0, 1, 0.6 + spread, 17);
    } else {
        in_call(t, L_WAITALL, S_WAITALL, 0, 0, 0, 0.2 + spread, 4);
    }
}

struct lenv {
    char host[64];
    int pid;
    char exe[512];
    struct ml_module mod;       /* this program's text mapping */
    uint64_t site_addr[NS];
    int64_t now;
};

static void find_module(struct lenv *v)
{
    uint64_t a = (uint64_t)(uintptr_t)&site_allreduce;
    FILE *m = fopen("/proc/self/maps", "r");
    if (!m) die("/proc/self/maps");
    char line[4096];
    while (fgets(line, sizeof line, m)) {
        unsigned long long s, e, off;
        char perm[8], path[4096] = "";
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perm, &off, path) < 4) continue;
        if (a < s || a >= e) continue;
        v->mod.start = s;
        v->mod.end = e;
        v->mod.file_offset = off;
        snprintf(v->mod.path, sizeof v->mod.path, "%s", path);
        break;
    }
    fclose(m);
    if (!v->mod.end) {
        fprintf(stderr, "gen_ranks: own text mapping not found\n");
        exit(1);
    }
    int (*fn[NS])(void) = {0, site_allreduce, site_recv, site_bcast, site_waitall, site_test,
                           site_send, site_barrier, site_irecv};
    /* a site is a return address: the line is that of address - 1 */
    for (int i = 1; i < NS; i++) v->site_addr[i] = (uint64_t)(uintptr_t)fn[i] + 1;
}

static uint64_t ago(const struct lenv *v, double s)
{
    return s < 0 ? 0 : (uint64_t)(v->now - (int64_t)(s * 1e9));
}

static void gen_live_rank(const char *dir, int rank, int size, const struct lrank *k, const struct lenv *v)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%05d.mlt", dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die(path);
    size_t rb = 4;
    for (int i = 0; i < NL; i++) rb += strlen(lnames[i]) + 1;
    rb = (rb + 63) & ~(size_t)63;
    uint64_t routines_off = ML_HEADER_SIZE, modules_off = routines_off + rb;
    uint64_t sites_off = modules_off + 2 * sizeof(struct ml_module);
    uint64_t live_off = sites_off + 16 * 8;
    uint64_t chunks_off = (live_off + LMAXT * sizeof(struct ml_live) + 4095) & ~4095ull;
    int sub = 64 < size ? 64 : size, sub0 = rank / sub * sub;
    if (sub0 + sub > size) sub = size - sub0;
    size_t rec_world = sizeof(struct ml_rec) + sizeof(struct ml_comm_def);
    size_t rec_sub = (rec_world + 4 * (size_t)sub + 7) & ~(size_t)7;
    size_t total = chunks_off + sizeof(struct ml_chunk) + rec_world + rec_sub;
    uint8_t *b = calloc(1, total);
    if (!b) die("calloc");
    struct ml_header *h = (struct ml_header *)b;
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
    h->max_modules = 2;
    h->max_sites = 16;
    h->max_threads = LMAXT;
    h->nroutines = NL;
    h->rank = rank;
    h->size = size;
    h->pid = k->dead ? 2000000000 - rank : v->pid;
    h->state = k->state;
    h->exit_status = k->state == ML_STATE_EXITED ? k->fail_code : 0;
    h->thread_level = k->nthreads > 1 ? 3 : -1;
    h->job_id = 4243;
    if (k->remote) snprintf(h->host, sizeof h->host, "far-node%d", rank / 64);
    else snprintf(h->host, sizeof h->host, "%s", v->host);
    snprintf(h->mpi_impl, sizeof h->mpi_impl, "openmpi");
    snprintf(h->mpi_version, sizeof h->mpi_version, "synthetic (bench/gen_ranks --live)");
    snprintf(h->exe, sizeof h->exe, "%s", v->exe);
    snprintf(h->cmdline, sizeof h->cmdline, "solver");
    h->clock_kind = 2;
    h->anchor0_ticks = ago(v, 60);
    h->anchor0_ns = (int64_t)h->anchor0_ticks;
    h->anchor1_ticks = (uint64_t)v->now;
    h->anchor1_ns = v->now;
    h->nchunks = 1;
    h->nmodules = 1;
    h->nthreads = k->nthreads;
    h->ncomms = 2;
    if (k->fail_kind) {
        h->failure.signo = k->fail_signo;
        h->failure.code = k->fail_code;
        h->failure.routine = (uint16_t)k->t[0].routine;
        h->failure.site = (uint32_t)k->t[0].site;
        h->failure.kind = k->fail_kind;
    }
    uint8_t *p = b + routines_off;
    *(uint32_t *)p = NL;
    p += 4;
    for (int i = 0; i < NL; i++) {
        size_t l = strlen(lnames[i]) + 1;
        memcpy(p, lnames[i], l);
        p += l;
    }
    memcpy(b + modules_off, &v->mod, sizeof v->mod);
    uint64_t *sites = (uint64_t *)(b + sites_off);
    for (int i = 1; i < NS; i++) sites[i - 1] = v->site_addr[i];
    struct ml_live *lv = (struct ml_live *)(b + live_off);
    for (unsigned i = 0; i < k->nthreads; i++) {
        const struct lslot *s = &k->t[i];
        if (!s->used) continue;
        lv[i].seq = 2;
        lv[i].routine = (uint16_t)s->routine;
        lv[i].used = 1;
        lv[i].site = (uint32_t)s->site;
        lv[i].peer = s->peer;
        lv[i].tag = s->tag;
        lv[i].comm = s->comm;
        lv[i].t_start = ago(v, s->start);
        lv[i].t_end = ago(v, s->end);
        lv[i].t_idle = ago(v, s->idle);
        lv[i].aux = s->aux;
        lv[i].tid = (uint64_t)(v->pid + (int)i);
    }
    /* chunk 0: MPI_COMM_WORLD (index 0) and a communicator of 64 ranks (index 1) */
    struct ml_chunk *c = (struct ml_chunk *)(b + chunks_off);
    c->magic = ML_CHUNK_MAGIC;
    c->base_ticks = h->anchor0_ticks;
    c->tid = (uint64_t)v->pid;
    struct ml_rec *r = (struct ml_rec *)(c + 1);
    r->type = ML_REC_COMM;
    r->dur = (uint32_t)rec_world;
    struct ml_comm_def *d = (struct ml_comm_def *)(r + 1);
    *d = (struct ml_comm_def){0, (uint32_t)size, 0, 2, 0x44000000, 1};
    r = (struct ml_rec *)((uint8_t *)r + rec_world);
    r->type = ML_REC_COMM;
    r->dur = (uint32_t)rec_sub;
    d = (struct ml_comm_def *)(r + 1);
    *d = (struct ml_comm_def){1, (uint32_t)sub, 0, 0, 0x84000001, 1000 + (uint64_t)(rank / 64)};
    int32_t *mem = (int32_t *)(d + 1);
    for (int i = 0; i < sub; i++) mem[i] = sub0 + i;
    c->committed = (uint32_t)(rec_world + rec_sub);
    if (write(fd, b, total) != (ssize_t)total) die("write");
    if (ftruncate(fd, (off_t)(chunks_off + ML_CHUNK_SIZE)) != 0) die("ftruncate");   /* sparse */
    close(fd);
    free(b);
}

static int gen_live(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: gen_ranks --live DIR RANKS odd-recv|odd-compute|half-recv|chain|mixed|states|late|old [PID]\n");
        return 2;
    }
    const char *dir = argv[2], *sc = argv[4];
    int size = atoi(argv[3]);
    if (strcmp(sc, "odd-recv") && strcmp(sc, "odd-compute") && strcmp(sc, "half-recv") && strcmp(sc, "chain") &&
        strcmp(sc, "mixed") && strcmp(sc, "late") && strcmp(sc, "old") &&
        strcmp(sc, "states")) {
        fprintf(stderr, "gen_ranks: unknown scenario '%s'\n", sc);
        return 2;
    }
    if (size < 2 || size > 1 << 22 || (!strcmp(sc, "states") && size < 12)) {
        fprintf(stderr, "gen_ranks: 2 ranks or more (states: 12 or more)\n");
        return 2;
    }
    struct lenv v;
    memset(&v, 0, sizeof v);
    if (gethostname(v.host, sizeof v.host - 1) != 0) die("gethostname");
    v.pid = argc == 6 ? atoi(argv[5]) : (int)getppid();
    char pe[64];
    snprintf(pe, sizeof pe, "/proc/%d/exe", v.pid);
    ssize_t l = readlink(pe, v.exe, sizeof v.exe - 1);
    if (l > 0) v.exe[l] = 0;
    find_module(&v);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v.now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) die(dir);
    int files = 0;
    for (int r = 0; r < size; r++) {
        struct lrank k;
        scenario(sc, r, size, &k);
        if (!k.present) continue;
        struct lenv lv = v;
        if (k.late) lv.now += 30000000000ll;
        gen_live_rank(dir, r, size, &k, &lv);
        files++;
    }
    printf("%d\n", files);
    return 0;
}

/* The call sites, one function per line of a pretend solver.c (a site is the
 * return address of a call: address - 1 lies in the function's first line). */
#line 10 "solver.c"
__attribute__((noinline, used)) int site_allreduce(void) { return 10; }
#line 20 "solver.c"
__attribute__((noinline, used)) int site_recv(void) { return 20; }
#line 30 "solver.c"
__attribute__((noinline, used)) int site_bcast(void) { return 30; }
#line 40 "solver.c"
__attribute__((noinline, used)) int site_waitall(void) { return 40; }
#line 50 "solver.c"
__attribute__((noinline, used)) int site_test(void) { return 50; }
#line 60 "solver.c"
__attribute__((noinline, used)) int site_send(void) { return 60; }
#line 70 "solver.c"
__attribute__((noinline, used)) int site_barrier(void) { return 70; }
#line 80 "solver.c"
__attribute__((noinline, used)) int site_irecv(void) { return 80; }
