/*
 * input.c — a run directory opened for analysis (analysis.h, "run").
 *
 * Promise: whatever is readable is analysed, and every file that is not, or
 * only partly, is named with what is wrong with it: cut or corrupt (the
 * reader's warnings), another format version, another job, a process that
 * never completed MPI_Init, a duplicate rank; ranks of the job with no file
 * at all are named too.  Nothing here trusts a field of a file without a
 * bound check.
 */
#include "analysis.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void problem(struct an_run *run, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    char *p = realloc(run->problems, run->problems_len + (size_t)n + 2);
    if (!p) return;
    run->problems = p;
    memcpy(p + run->problems_len, buf, (size_t)n + 1);
    run->problems_len += (size_t)n + 1;
    p[run->problems_len] = 0;
    run->nproblems++;
}

const char *an_run_problem(const struct an_run *run, const char *prev)
{
    if (!run->problems_len) return NULL;
    if (!prev) return run->problems;
    const char *next = prev + strlen(prev) + 1;
    return next < run->problems + run->problems_len ? next : NULL;
}

/* ---- routine roles ------------------------------------------------------ */

static int name_is(const char *n, const char *want)
{
    /* MPI_X, its large-count MPI_X_c and Fortran's upper case */
    size_t l = strlen(want);
    if (strncasecmp(n, want, l) != 0) return 0;
    return n[l] == 0 || strcasecmp(n + l, "_c") == 0;
}

enum an_role an_role_of(const char *n)
{
    static const struct { const char *name; enum an_role role; } t[] = {
        {"MPI_Send", AN_SEND}, {"MPI_Bsend", AN_SEND}, {"MPI_Ssend", AN_SEND}, {"MPI_Rsend", AN_SEND},
        {"MPI_Isend", AN_ISEND}, {"MPI_Ibsend", AN_ISEND}, {"MPI_Issend", AN_ISEND},
        {"MPI_Irsend", AN_ISEND},
        {"MPI_Recv", AN_RECV}, {"MPI_Irecv", AN_IRECV},
        {"MPI_Send_init", AN_SEND_INIT}, {"MPI_Bsend_init", AN_SEND_INIT},
        {"MPI_Ssend_init", AN_SEND_INIT}, {"MPI_Rsend_init", AN_SEND_INIT},
        {"MPI_Recv_init", AN_RECV_INIT},
        {"MPI_Sendrecv", AN_SENDRECV}, {"MPI_Sendrecv_replace", AN_SENDRECV},
        {"MPI_Isendrecv", AN_ISENDRECV}, {"MPI_Isendrecv_replace", AN_ISENDRECV},
        {"MPI_Probe", AN_PROBE}, {"MPI_Iprobe", AN_PROBE}, {"MPI_Improbe", AN_IMPROBE},
        {"MPI_Mprobe", AN_MPROBE},
        {"MPI_Start", AN_START}, {"MPI_Startall", AN_START},
        {"MPI_Cancel", AN_CANCEL}, {"MPI_Request_free", AN_FREE},
        {"MPI_Init", AN_INIT}, {"MPI_Init_thread", AN_INIT},
        {"MPI_Finalize", AN_FINALIZE},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (name_is(n, t[i].name)) return t[i].role;
    return AN_OTHER;
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The run-wide id of a routine name (names of all files in one table, with
 * their role); a hash table over the names keeps this linear in the names
 * of all files. */
static uint16_t intern(struct an_run *run, const char *name)
{
    uint32_t h = name_hash(name);
    if (run->name_hcap) {
        for (uint32_t i = h & (run->name_hcap - 1);; i = (i + 1) & (run->name_hcap - 1)) {
            uint32_t v = run->name_index[i];
            if (!v) break;
            if (strcmp(run->names[v - 1], name) == 0) return (uint16_t)(v - 1);
        }
    }
    if (run->nnames >= 65535) return 0;
    if ((run->nnames + 1) * 2 > run->name_hcap) {
        unsigned cap = run->name_hcap ? run->name_hcap * 2 : 1024;
        uint32_t *t = calloc(cap, sizeof *t);
        char **nm = realloc(run->names, cap / 2 * sizeof *nm);
        uint8_t *rl = realloc(run->name_role, cap / 2);
        if (nm) run->names = nm;
        if (rl) run->name_role = rl;
        if (!t || !nm || !rl) {
            free(t);
            return 0;
        }
        for (unsigned k = 0; k < run->nnames; k++) {
            uint32_t j = name_hash(run->names[k]) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = k + 1;
        }
        free(run->name_index);
        run->name_index = t;
        run->name_hcap = cap;
    }
    char *dup = strdup(name);
    if (!dup) return 0;
    uint32_t j = h & (run->name_hcap - 1);
    while (run->name_index[j]) j = (j + 1) & (run->name_hcap - 1);
    run->name_index[j] = run->nnames + 1;
    run->names[run->nnames] = dup;
    run->name_role[run->nnames] = (uint8_t)an_role_of(dup);
    return (uint16_t)run->nnames++;
}

/* ---- communicators -------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t members_hash(const int32_t *m, uint32_t n)
{
    uint64_t h = mix(0x6d656d62, n);
    for (uint32_t i = 0; i < n; i++) h = mix(h, (uint32_t)m[i]);
    return h;
}

/* The key that is the same for a communicator on all its members: global id
 * and members.  Inter-communicators: the runtime derives their global id
 * from the local group's parent, which differs between the two groups, so
 * only the two groups (in canonical order) identify them. */
static uint64_t comm_key(const struct mlr_comm *c, int size)
{
    if (c->flags & 2) return mix(1, (uint64_t)size);
    if (c->flags & 1) {
        uint64_t a = members_hash(c->members, c->size);
        uint64_t b = members_hash(c->members + c->size, c->remote_size);
        return mix(mix(0x696e746572, a < b ? a : b), a < b ? b : a);
    }
    return mix(c->global_id, members_hash(c->members, c->size));
}

static uint32_t comm_register(struct an_run *run, const struct mlr_comm *c, int rank)
{
    uint64_t key = comm_key(c, run->size);
    for (unsigned i = 0; i < run->ncomms; i++)
        if (run->comms[i].key == key) return i;
    if ((run->ncomms & (run->ncomms - 1)) == 0) {
        struct an_comm *p = realloc(run->comms, (run->ncomms ? run->ncomms * 2 : 16) * sizeof *p);
        if (!p) return UINT32_MAX;
        run->comms = p;
    }
    struct an_comm *d = &run->comms[run->ncomms];
    memset(d, 0, sizeof *d);
    d->id = run->ncomms;
    d->key = key;
    d->world = !!(c->flags & 2);
    d->inter = !!(c->flags & 1);
    d->size = d->world ? (uint32_t)run->size : c->size + (d->inter ? c->remote_size : 0);
    d->members = d->world ? NULL : c->members;
    d->first_rank = rank;
    return run->ncomms++;
}

/* Communicator definitions are few; registering them all up front gives one
 * numbering for the whole run. */
static void comms_map(struct an_run *run, struct an_rank *r)
{
    unsigned n = mlr_ncomms(r->f);   /* what the file defines, whatever its header says */
    if (n > ML_COMM_NONE) n = ML_COMM_NONE;
    r->comm = malloc((n ? n : 1) * sizeof *r->comm);
    if (!r->comm) return;
    r->ncomms = n;
    for (unsigned i = 0; i < n; i++) {
        const struct mlr_comm *c = mlr_comm(r->f, (uint16_t)i);
        r->comm[i] = UINT32_MAX;
        if (!c) continue;
        if (!(c->flags & 2) && (c->size > (uint32_t)run->size || c->remote_size > (uint32_t)run->size ||
                                !c->members))
            continue;
        int bad = 0;
        for (uint32_t k = 0; c->members && k < c->size + c->remote_size; k++)
            if (c->members[k] < 0 || c->members[k] >= run->size) bad = 1;
        if (bad) continue;
        r->comm[i] = comm_register(run, c, r->rank);
    }
}

int an_peer_world(const struct an_run *run, const struct an_rank *r, uint16_t comm, int32_t peer)
{
    if (peer < 0) return -1;
    if (comm < r->ncomms && r->comm[comm] != UINT32_MAX && run->comms[r->comm[comm]].world)
        return peer < run->size ? peer : -1;
    int w = mlr_world_rank(r->f, comm, peer, 1);
    return w < run->size ? w : -1;
}

/* The collective's kind from its routine name: "MPI_Ibcast_c" -> "bcast"
 * (lower case, without MPI_, the nonblocking I, _c and _init). */
static void coll_kind(const char *name, char *b, size_t n)
{
    if (strncasecmp(name, "MPI_", 4) == 0) name += 4;
    size_t l = 0;
    for (; name[l] && l + 1 < n; l++) b[l] = (char)tolower((unsigned char)name[l]);
    b[l] = 0;
    if (l > 2 && strcmp(b + l - 2, "_c") == 0) b[l -= 2] = 0;
    if (l > 5 && strcmp(b + l - 5, "_init") == 0) b[l -= 5] = 0;
    static const char *const blocking[] = {"bcast", "barrier", "gather", "gatherv", "scatter", "scatterv",
                                           "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
                                           "allreduce", "reduce", "reduce_scatter", "reduce_scatter_block",
                                           "scan", "exscan"};
    if (b[0] == 'i')
        for (size_t i = 0; i < sizeof blocking / sizeof *blocking; i++)
            if (strcmp(b + 1, blocking[i]) == 0) {
                memmove(b, b + 1, l);
                return;
            }
}

void an_coll_bytes(const struct an_run *run, const struct an_rank *r, const char *routine, const struct ml_coll *c,
                   uint64_t *sent, uint64_t *recv)
{
    *sent = c->bytes;
    *recv = c->rbytes;
    uint32_t id = c->comm < r->ncomms ? r->comm[c->comm] : UINT32_MAX;
    if (id >= run->ncomms || run->comms[id].inter) return;   /* MPI_ROOT and the remote group: as recorded */
    const struct an_comm *cm = &run->comms[id];
    uint64_t n = cm->world ? (uint64_t)run->size : cm->size;
    int me = cm->world ? r->rank : -1;
    for (uint32_t i = 0; me < 0 && cm->members && i < cm->size; i++)
        if (cm->members[i] == r->rank) me = (int)i;
    int root = me >= 0 && c->root == me;
    uint64_t s = c->bytes, q = c->rbytes;
    char k[48];
    coll_kind(routine, k, sizeof k);
    if (strcmp(k, "barrier") == 0) *sent = *recv = 0;
    else if (strcmp(k, "bcast") == 0) *sent = root ? s : 0, *recv = root ? 0 : s;
    else if (strcmp(k, "reduce") == 0) *sent = s, *recv = root ? s : 0;
    else if (strcmp(k, "allreduce") == 0 || strcmp(k, "scan") == 0 || strcmp(k, "exscan") == 0) *sent = *recv = s;
    else if (strcmp(k, "gather") == 0) *sent = s, *recv = root ? q * n : 0;
    else if (strcmp(k, "gatherv") == 0) *sent = s, *recv = root ? q : 0;
    else if (strcmp(k, "scatter") == 0) *sent = root ? s * n : 0, *recv = q;
    else if (strcmp(k, "scatterv") == 0) *sent = root ? s : 0, *recv = q;
    else if (strcmp(k, "allgather") == 0) *sent = s, *recv = q * n;
    else if (strcmp(k, "alltoall") == 0) *sent = s * n, *recv = q * n;
    else if (strcmp(k, "reduce_scatter_block") == 0) *sent = s * n, *recv = s;   /* the count is recvcount */
}

void an_comm_name(const struct an_run *run, uint32_t id, char *buf, size_t n)
{
    if (id >= run->ncomms) {
        snprintf(buf, n, "unknown communicator");
        return;
    }
    const struct an_comm *c = &run->comms[id];
    if (c->world) {
        snprintf(buf, n, "MPI_COMM_WORLD");
        return;
    }
    size_t o = (size_t)snprintf(buf, n, "comm %u (%s%u rank%s: ", id, c->inter ? "inter, " : "",
                                c->size, c->size == 1 ? "" : "s");
    for (uint32_t i = 0; i < c->size && o + 16 < n; i++) {
        /* ranges: 0-3,8 */
        uint32_t j = i;
        while (j + 1 < c->size && c->members[j + 1] == c->members[j] + 1) j++;
        if (j > i + 1) o += (size_t)snprintf(buf + o, n - o, "%s%d-%d", i ? "," : "", c->members[i], c->members[j]);
        else {
            o += (size_t)snprintf(buf + o, n - o, "%s%d", i ? "," : "", c->members[i]);
            j = i;
        }
        i = j;
        if (o + 16 >= n && i + 1 < c->size) {
            snprintf(buf + o, n - o, ",...");
            o = strlen(buf);
        }
    }
    if (o + 2 < n) snprintf(buf + o, n - o, ")");
}

/* ---- opening ------------------------------------------------------------- */

/* A file the reader refused for its version: say which version it has. */
static uint32_t file_version(const char *path)
{
    uint32_t v = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    if (pread(fd, &v, 4, 8) != 4) v = 0;
    close(fd);
    return v;
}

static int rank_cmp(const void *a, const void *b)
{
    const struct an_rank *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The identity of a job: what every rank file of one job shares. */
struct job {
    uint64_t id;
    int32_t size;
    char impl[33];
    unsigned votes;
};

static void job_of(const struct ml_header *h, struct job *j)
{
    memset(j, 0, sizeof *j);
    j->id = h->job_id;
    j->size = h->size;
    memcpy(j->impl, h->mpi_impl, sizeof h->mpi_impl);
    j->impl[32] = 0;
    for (char *c = j->impl; *c; c++)
        if (*c < 32 || *c > 126) *c = '?';
}

static int job_eq(const struct job *a, const struct job *b)
{
    return a->id == b->id && a->size == b->size && strcmp(a->impl, b->impl) == 0;
}

/* The ranks without a file, from the sorted ranks that have one: work by
 * files, not by the world size (a damaged header may claim 2^24 ranks). */
static void describe_missing(struct an_run *run)
{
    int count = 0, next = 0;   /* next: the first rank not yet accounted for */
    char list[512] = "";
    size_t o = 0;
    for (unsigned i = 0; i <= run->n; i++) {
        int r = i < run->n ? run->ranks[i].rank : run->size;
        if (r > next) {
            count += r - next;
            if (o + 32 < sizeof list) {
                if (r - 1 > next) o += (size_t)snprintf(list + o, sizeof list - o, "%s%d-%d", o ? "," : "", next, r - 1);
                else o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", o ? "," : "", next);
            }
        }
        if (r >= next) next = r + 1;
    }
    if (count)
        problem(run, "%s: %d of %d rank%s %s no readable rank file (rank %s); the analysis covers the other "
                     "ranks and their messages to or from these ranks show as unmatched",
                run->dir, count, run->size, run->size == 1 ? "" : "s", count == 1 ? "has" : "have", list);
}

int an_run_open(const char *dir, struct an_run *run)
{
    memset(run, 0, sizeof *run);
    run->dir = strdup(dir);
    struct mlr_dir d;
    int err = mlr_dir_scan(dir, &d);
    char *single[1];
    if (err == MLR_EDIR) {
        /* one rank file is fine too */
        struct mlr_file *f;
        int ferr = mlr_open(dir, &f);
        if (ferr == MLR_EIO) {
            problem(run, "%s: does not exist or is not a run directory (give the directory the run wrote, "
                         "e.g. mpilens-app-1234/)", dir);
            return MLR_EDIR;
        }
        if (f) mlr_close(f);
        single[0] = strdup(dir);
        d.path = NULL;
        d.n = 1;
        d.files = single;
    } else if (err) {
        problem(run, "%s: %s", dir, mlr_strerror(err));
        return err;
    }
    run->nfiles = d.n;
    struct mlr_file **fs = calloc(d.n, sizeof *fs);
    struct job *jobs = calloc(d.n, sizeof *jobs);
    unsigned njobs = 0;
    if (!fs || !jobs) {
        free(fs);
        free(jobs);
        if (d.files == single) free(single[0]);
        else mlr_dir_free(&d);
        problem(run, "%s: out of memory", dir);
        return MLR_EIO;
    }
    for (unsigned i = 0; i < d.n; i++) {
        int e = mlr_open(d.files[i], &fs[i]);
        if (e == MLR_EVERSION) {
            problem(run, "%s: format version %u; this mpilens reads version %d (use the mpilens that "
                         "recorded it); skipped", d.files[i], file_version(d.files[i]), ML_VERSION);
            continue;
        }
        if (e) {
            problem(run, "%s: %s; skipped", d.files[i], mlr_strerror(e));
            continue;
        }
        for (const char *w = mlr_warnings(fs[i]); w && *w; w += strlen(w) + 1) problem(run, "%s", w);
        const struct ml_header *h = mlr_header(fs[i]);
        if (h->rank < 0 || h->size <= 0 || h->rank >= h->size || h->size > (1 << 24)) {
            problem(run, "%s: the process never completed MPI_Init (rank %d of %d); skipped", d.files[i],
                    h->rank, h->size);
            mlr_close(fs[i]);
            fs[i] = NULL;
            continue;
        }
        if (h->dropped)
            problem(run, "%s: %llu MPI calls of rank %d were not recorded (the disk was full or stalled), from %.3f s "
                    "after the process started", d.files[i], (unsigned long long)h->dropped, h->rank,
                    ((double)mlr_ticks_to_ns(fs[i], h->dropped_since) - (double)h->anchor0_ns) / 1e9);
        struct job j;
        job_of(h, &j);
        unsigned k;
        for (k = 0; k < njobs && !job_eq(&jobs[k], &j); k++) {
        }
        if (k == njobs) jobs[njobs++] = j;
        jobs[k].votes++;
    }
    /* the job most files belong to (ties: the one of the lowest rank file) */
    unsigned best = 0;
    for (unsigned k = 1; k < njobs; k++)
        if (jobs[k].votes > jobs[best].votes) best = k;
    if (njobs) run->size = jobs[best].size;
    run->ranks = calloc(d.n ? d.n : 1, sizeof *run->ranks);
    run->slot = malloc(((size_t)run->size + 1) * sizeof *run->slot);
    if (run->slot) memset(run->slot, 0xff, (size_t)run->size * sizeof *run->slot);   /* -1: no file */
    for (unsigned i = 0; i < d.n; i++) {
        if (!fs[i]) continue;
        const struct ml_header *h = mlr_header(fs[i]);
        struct job j;
        job_of(h, &j);
        if (!job_eq(&j, &jobs[best])) {
            problem(run, "%s: belongs to another job (job id %llu, %d ranks, %s runtime; the other files: "
                         "job id %llu, %d ranks, %s); skipped",
                    d.files[i], (unsigned long long)j.id, j.size, j.impl, (unsigned long long)jobs[best].id,
                    jobs[best].size, jobs[best].impl);
            mlr_close(fs[i]);
            continue;
        }
        if (!run->ranks || !run->slot) {
            mlr_close(fs[i]);
            continue;
        }
        if (run->slot[h->rank] >= 0) {
            problem(run, "%s: a second file for rank %d (the first is %s); skipped", d.files[i], h->rank,
                    mlr_path(run->ranks[run->slot[h->rank]].f));
            mlr_close(fs[i]);
            continue;
        }
        struct an_rank *r = &run->ranks[run->n];
        r->f = fs[i];
        r->rank = h->rank;
        run->slot[h->rank] = (int)run->n++;
    }
    free(fs);
    free(jobs);
    if (d.files == single) free(single[0]);
    else mlr_dir_free(&d);
    if (run->n == 0) {
        problem(run, "%s: no rank file could be read", dir);
        return MLR_ENOFILES;
    }
    qsort(run->ranks, run->n, sizeof *run->ranks, rank_cmp);
    for (unsigned i = 0; i < run->n; i++) run->slot[run->ranks[i].rank] = (int)i;
    describe_missing(run);

    const struct ml_header *h0 = mlr_header(run->ranks[0].f);
    memcpy(run->mpi_impl, h0->mpi_impl, 32);
    /* the library's version text, first line ("MPICH Version:\t4.0.2\n...") */
    size_t o = 0;
    for (size_t i = 0; i < sizeof h0->mpi_version && h0->mpi_version[i] && h0->mpi_version[i] != '\n' &&
                       o + 1 < sizeof run->mpi_version; i++) {
        char c = h0->mpi_version[i];
        if (c == '\t') c = ' ';
        if (c == ' ' && o && run->mpi_version[o - 1] == ' ') continue;
        run->mpi_version[o++] = (c < 32 || c == 127) ? '?' : c;
    }
    run->mpi_version[o] = 0;
    snprintf(run->exe, sizeof run->exe, "%s", mlr_exe(run->ranks[0].f));
    for (char *c = run->mpi_impl; *c; c++)
        if (*c < 32 || *c > 126) *c = '?';

    for (unsigned i = 0; i < run->n; i++) {
        struct an_rank *r = &run->ranks[i];
        const struct ml_header *h = mlr_header(r->f);
        int mpich = strncmp(h->mpi_impl, "mpich", 5) == 0;
        r->any_source = mpich ? -2 : -1;
        r->proc_null = mpich ? -1 : -2;
        unsigned nr = h->nroutines < 65536 ? h->nroutines : 65536;
        r->nroutines = nr;
        r->role = calloc(nr ? nr : 1, 1);
        r->name = calloc(nr ? nr : 1, sizeof *r->name);
        for (unsigned k = 0; r->role && r->name && k < nr; k++) {
            r->name[k] = intern(run, mlr_routine_name(r->f, (uint16_t)k));
            r->role[k] = run->nnames ? run->name_role[r->name[k]] : AN_OTHER;
        }
        if (!r->role || !r->name) r->nroutines = 0;
        comms_map(run, r);
        const char *why = an_clock_init(&r->clock, h);
        if (why) problem(run, "%s: %s", mlr_path(r->f), why);
    }
    return 0;
}

void an_run_close(struct an_run *run)
{
    for (unsigned i = 0; i < run->n; i++) {
        struct an_rank *r = &run->ranks[i];
        mlr_close(r->f);
        free(r->role);
        free(r->name);
        free(r->comm);
        an_clock_free(&r->clock);
    }
    for (unsigned i = 0; i < run->nnames; i++) free(run->names[i]);
    free(run->names);
    free(run->name_role);
    free(run->name_index);
    free(run->ranks);
    free(run->slot);
    free(run->comms);
    free(run->problems);
    free(run->dir);
    memset(run, 0, sizeof *run);
}

void an_run_span(const struct an_run *run, int64_t *first, int64_t *last)
{
    *first = INT64_MAX;
    *last = INT64_MIN;
    for (unsigned i = 0; i < run->n; i++) {
        const struct an_rank *r = &run->ranks[i];
        const struct ml_header *h = mlr_header(r->f);
        int64_t a = an_clock_base(&r->clock, h->anchor0_ns);
        int64_t b = an_clock_base(&r->clock, h->anchor1_ns);
        if (a < *first) *first = a;
        if (b > *last) *last = b;
    }
}
