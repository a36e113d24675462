/*
 * input.c — a run directory opened for analysis (analysis.h, "run").
 *
 * Promise: whatever is readable is analysed, and every file that is not, or
 * only partly, is named with what is wrong with it: cut or corrupt (the
 * reader's warnings), another format version, another job, a process that
 * never completed MPI_Init, a duplicate rank; ranks of the job with no file
 * at all are named too.  Nothing here trusts a field of a file without a
 * bound check.
 *
 * A process of a parallel analysis opens only its block of the files
 * (an_run_open_slice); what the others' files contribute to the run's
 * numbering and problems comes through the exchange, and the result is
 * numbered and worded as an_run_open would.
 */
#include "analysis.h"
#include "exchange.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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

int an_pcoll_base(const char *n, char *out, size_t size)
{
    static const char *const t[] = {
        "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
        "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
        "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv",
        "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw",
    };
    if (!strncasecmp(n, "MPIX_", 5)) n += 5;
    else if (!strncasecmp(n, "MPI_", 4)) n += 4;
    else return 0;
    size_t l = strlen(n);
    if (l > 2 && !strcasecmp(n + l - 2, "_c")) l -= 2;
    if (l <= 5 || strncasecmp(n + l - 5, "_init", 5) != 0) return 0;
    l -= 5;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strlen(t[i]) == l && !strncasecmp(n, t[i], l)) {
            if (out) snprintf(out, size, "MPI_%s", t[i]);
            return 1;
        }
    return 0;
}

enum an_role an_role_of(const char *n)
{
    if (an_pcoll_base(n, NULL, 0)) return AN_COLL_INIT;
    static const struct { const char *name; enum an_role role; } t[] = {
        {"MPI_Send", AN_SEND}, {"MPI_Bsend", AN_SEND}, {"MPI_Ssend", AN_SEND}, {"MPI_Rsend", AN_SEND},
        {"MPI_Isend", AN_ISEND}, {"MPI_Ibsend", AN_ISEND}, {"MPI_Issend", AN_ISEND},
        {"MPI_Irsend", AN_ISEND},
        {"MPI_Recv", AN_RECV}, {"MPI_Irecv", AN_IRECV},
        {"MPI_Send_init", AN_SEND_INIT}, {"MPI_Bsend_init", AN_SEND_INIT},
        {"MPI_Ssend_init", AN_SEND_INIT}, {"MPI_Rsend_init", AN_SEND_INIT},
        {"MPI_Recv_init", AN_RECV_INIT},
        {"MPI_Psend_init", AN_SEND_INIT}, {"MPI_Precv_init", AN_RECV_INIT},   /* partitioned: one message per start */
        {"MPI_Sendrecv", AN_SENDRECV}, {"MPI_Sendrecv_replace", AN_SENDRECV},
        {"MPI_Isendrecv", AN_ISENDRECV}, {"MPI_Isendrecv_replace", AN_ISENDRECV},
        {"MPI_Probe", AN_PROBE}, {"MPI_Iprobe", AN_PROBE}, {"MPI_Improbe", AN_IMPROBE},
        {"MPI_Mprobe", AN_MPROBE},
        {"MPI_Start", AN_START}, {"MPI_Startall", AN_START},
        {"MPI_Cancel", AN_CANCEL}, {"MPI_Request_free", AN_FREE},
        {"MPI_Init", AN_INIT}, {"MPI_Init_thread", AN_INIT},
        {"MPI_Finalize", AN_FINALIZE},
        {"MPI_Put", AN_RMA}, {"MPI_Rput", AN_RMA}, {"MPI_Get", AN_RMA}, {"MPI_Rget", AN_RMA},
        {"MPI_Accumulate", AN_RMA}, {"MPI_Raccumulate", AN_RMA}, {"MPI_Get_accumulate", AN_RMA},
        {"MPI_Rget_accumulate", AN_RMA}, {"MPI_Fetch_and_op", AN_RMA}, {"MPI_Compare_and_swap", AN_RMA},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (name_is(n, t[i].name)) return t[i].role;
    return AN_OTHER;
}

/* A collective by its name (MPI_Barrier, MPI_Iallreduce, MPI_Neighbor_alltoall, ...). */
static int coll_name(const char *name)
{
    static const char *const c[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather",
                                    "alltoall", "scan", "exscan", "neighbor_"};
    if (strncmp(name, "MPI_", 4)) return 0;
    name += 4;
    if (name[0] == 'I' && name[1] >= 'a' && name[1] <= 'z') name++;
    if (!strncasecmp(name, "reduce_local", 12)) return 0;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        if (!strncasecmp(name, c[i], strlen(c[i]))) return 1;
    return 0;
}

/* The record type a call in progress when its rank stopped (read from its
 * live slot, type ML_REC_CALL) would have had: its routine's role or name
 * says; the slot holds its communicator, peer and tag. */
uint8_t an_unfinished_type(const struct an_rank *r, const struct mlr_event *ev, const char *nm)
{
    switch (ev->routine < r->nroutines ? r->role[ev->routine] : AN_OTHER) {
    case AN_SEND: case AN_ISEND: case AN_RECV: case AN_IRECV: case AN_PROBE: case AN_MPROBE: case AN_IMPROBE:
        return ML_REC_P2P;
    case AN_SENDRECV: case AN_ISENDRECV:
        return ML_REC_SENDRECV;
    default:
        break;
    }
    if (ev->coll.comm != ML_COMM_NONE && coll_name(nm)) return ML_REC_COLL;
    return ML_REC_CALL;
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

static uint32_t comm_add(struct an_run *run, uint64_t key, int world, int inter, uint32_t size,
                         const int32_t *members, int rank)
{
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
    d->world = world;
    d->inter = inter;
    d->size = size;
    d->lsize = size;
    d->members = world ? NULL : members;
    d->first_rank = rank;
    return run->ncomms++;
}

static uint32_t comm_register(struct an_run *run, const struct mlr_comm *c, int rank)
{
    int world = !!(c->flags & 2), inter = !!(c->flags & 1);
    uint32_t id = comm_add(run, comm_key(c, run->size), world, inter,
                           world ? (uint32_t)run->size : c->size + (inter ? c->remote_size : 0), c->members, rank);
    if (id != UINT32_MAX && inter && run->comms[id].first_rank == rank && run->comms[id].members == c->members)
        run->comms[id].lsize = c->size;
    if (id != UINT32_MAX && c->name[0] && !run->comms[id].name) run->comms[id].name = c->name;
    return id;
}

/* Whether definition c of a file of a job of `size` ranks can be used. */
static int comm_usable(const struct mlr_comm *c, int size)
{
    if (!c) return 0;
    if (!(c->flags & 2) && (c->size > (uint32_t)size || c->remote_size > (uint32_t)size || !c->members)) return 0;
    for (uint32_t k = 0; c->members && k < c->size + c->remote_size; k++)
        if (c->members[k] < 0 || c->members[k] >= size) return 0;
    return 1;
}

/* A member's in-neighbours in a virtual topology (what its neighbourhood
 * collectives receive from), as positions in cm. */
static void comm_topo(struct an_run *run, struct an_comm *cm, const struct mlr_comm *c, int rank)
{
    (void)run;
    uint32_t pos = 0;
    while (pos < c->size && c->members[pos] != rank) pos++;
    if (pos == c->size) return;
    if (!cm->src) {
        cm->src = calloc(cm->size, sizeof *cm->src);
        cm->nsrc = malloc(cm->size * sizeof *cm->nsrc);
        if (!cm->src || !cm->nsrc) {
            free(cm->src);
            free(cm->nsrc);
            cm->src = NULL;
            cm->nsrc = NULL;
            return;
        }
        for (uint32_t k = 0; k < cm->size; k++) cm->nsrc[k] = -1;
    }
    for (int32_t k = 0; k < c->nsrc; k++)
        if (c->srcs[k] < 0 || (uint32_t)c->srcs[k] >= cm->size) return;
    cm->src[pos] = c->srcs;
    cm->nsrc[pos] = c->nsrc;
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
        if (!comm_usable(c, run->size)) continue;
        r->comm[i] = comm_register(run, c, r->rank);
        if (r->comm[i] != UINT32_MAX && c->srcs && !(c->flags & 3)) comm_topo(run, &run->comms[r->comm[i]], c, r->rank);
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

/* an_coll_bytes on an inter-communicator: the root passes MPI_ROOT, the
 * other members of its group MPI_PROC_NULL (they move nothing), the remote
 * group the root's rank; n blocks go to or come from the remote group. */
static void inter_coll_bytes(const struct an_rank *r, const char *routine, const struct ml_coll *c,
                             uint64_t *sent, uint64_t *recv)
{
    const struct mlr_comm *d = mlr_comm(r->f, c->comm);
    uint64_t n = d ? d->remote_size : 0, s = c->bytes, q = c->rbytes;
    char k[48];
    coll_kind(routine, k, sizeof k);
    int rooted = strcmp(k, "bcast") == 0 || strcmp(k, "reduce") == 0 || strcmp(k, "gather") == 0 ||
                 strcmp(k, "gatherv") == 0 || strcmp(k, "scatter") == 0 || strcmp(k, "scatterv") == 0;
    if (rooted && c->root == r->proc_null) {
        *sent = *recv = 0;
        return;
    }
    int root = c->root == r->mpi_root;
    if (strcmp(k, "barrier") == 0) *sent = *recv = 0;
    else if (strcmp(k, "bcast") == 0) *sent = root ? s : 0, *recv = root ? 0 : s;
    else if (strcmp(k, "reduce") == 0) *sent = root ? 0 : s, *recv = root ? s : 0;
    else if (strcmp(k, "allreduce") == 0) *sent = *recv = s;
    else if (strcmp(k, "gather") == 0) *sent = root ? 0 : s, *recv = root ? q * n : 0;
    else if (strcmp(k, "gatherv") == 0) *sent = root ? 0 : s, *recv = root ? q : 0;
    else if (strcmp(k, "scatter") == 0) *sent = root ? s * n : 0, *recv = root ? 0 : q;
    else if (strcmp(k, "scatterv") == 0) *sent = root ? s : 0, *recv = root ? 0 : q;
    else if (strcmp(k, "allgather") == 0) *sent = s, *recv = q * n;
    else if (strcmp(k, "alltoall") == 0) *sent = s * n, *recv = q * n;
}

void an_coll_bytes(const struct an_run *run, const struct an_rank *r, const char *routine, const struct ml_coll *c,
                   uint64_t *sent, uint64_t *recv)
{
    *sent = c->bytes;
    *recv = c->rbytes;
    uint32_t id = c->comm < r->ncomms ? r->comm[c->comm] : UINT32_MAX;
    if (id >= run->ncomms) return;
    if (run->comms[id].inter) {
        inter_coll_bytes(r, routine, c, sent, recv);
        return;
    }
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
    size_t o = c->name ? (size_t)snprintf(buf, n, "comm %u '%s' (%s%u rank%s: ", id, c->name, c->inter ? "inter, " : "",
                                          c->size, c->size == 1 ? "" : "s")
                       : (size_t)snprintf(buf, n, "comm %u (%s%u rank%s: ", id, c->inter ? "inter, " : "",
                                          c->size, c->size == 1 ? "" : "s");
    if (o >= n) o = n ? n - 1 : 0;
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
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
static void describe_missing(struct an_run *run, const int *ranks, unsigned n)
{
    int count = 0, next = 0;   /* next: the first rank not yet accounted for */
    char list[512] = "";
    size_t o = 0;
    for (unsigned i = 0; i <= n; i++) {
        int r = i < n ? ranks[i] : run->size;
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

/* A rank's routines, communicators and clock; the clock's complaint or NULL. */
static const char *rank_setup(struct an_run *run, struct an_rank *r)
{
    const struct ml_header *h = mlr_header(r->f);
    int mpich = strncmp(h->mpi_impl, "mpich", 5) == 0;
    r->any_source = mpich ? -2 : -1;
    r->proc_null = mpich ? -1 : -2;
    r->mpi_root = mpich ? -3 : -4;
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
    return an_clock_init(&r->clock, h);
}

/* One rank file, or NULL; what is wrong with it goes to the problems. */
static struct mlr_file *open_one(struct an_run *run, const char *path)
{
    struct mlr_file *f = NULL;
    int e = mlr_open(path, &f);
    if (e == MLR_EVERSION) {
        problem(run, "%s: format version %u; this mpilens reads version %d (use the mpilens that "
                     "recorded it); skipped", path, file_version(path), ML_VERSION);
        return NULL;
    }
    if (e) {
        problem(run, "%s: %s; skipped", path, mlr_strerror(e));
        return NULL;
    }
    for (const char *w = mlr_warnings(f); w && *w; w += strlen(w) + 1) problem(run, "%s", w);
    const struct ml_header *h = mlr_header(f);
    if (h->rank < 0 || h->size <= 0 || h->rank >= h->size || h->size > (1 << 24)) {
        if (h->size > 0)
            problem(run, "%s: the process never completed MPI_Init (rank %d of %d); skipped", path, h->rank,
                    h->size);
        else  /* no size before MPI_Init completes: "rank 0 of -1" said nothing */
            problem(run, "%s: the process never completed MPI_Init; skipped", path);
        mlr_close(f);
        return NULL;
    }
    if (h->dropped)
        problem(run, "%s: %llu MPI calls of rank %d were not recorded (the disk was full or stalled), from %.3f s "
                "after the process started", path, (unsigned long long)h->dropped, h->rank,
                ((double)mlr_ticks_to_ns(f, h->dropped_since) - (double)h->anchor0_ns) / 1e9);
    return f;
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
        if (!(fs[i] = open_one(run, d.files[i]))) continue;
        const struct ml_header *h = mlr_header(fs[i]);
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
    int *sorted = malloc(run->n * sizeof *sorted);
    for (unsigned i = 0; sorted && i < run->n; i++) sorted[i] = run->ranks[i].rank;
    if (sorted) describe_missing(run, sorted, run->n);
    free(sorted);

    const struct ml_header *h0 = mlr_header(run->ranks[0].f);
    memcpy(run->mpi_impl, h0->mpi_impl, 32);
    an_run_header_text(run, h0, mlr_exe(run->ranks[0].f));
    for (char *c = run->mpi_impl; *c; c++)
        if (*c < 32 || *c > 126) *c = '?';

    for (unsigned i = 0; i < run->n; i++) {
        const char *why = rank_setup(run, &run->ranks[i]);
        if (why) problem(run, "%s: %s", mlr_path(run->ranks[i].f), why);
    }
    return 0;
}

/* ---- a slice of the run (parallel analysis, docs/PARALLEL.md) ------------- */

void an_buf_put(struct an_buf *b, const void *v, size_t n)
{
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

static void put(struct an_buf *b, const void *v, size_t n) { an_buf_put(b, v, n); }
static void put_u32(struct an_buf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_u64(struct an_buf *b, uint64_t v) { put(b, &v, sizeof v); }
static void put_str(struct an_buf *b, const char *s) { put(b, s, strlen(s) + 1); }

struct rd {
    const char *p, *end;
    int bad;
};

static const char *get(struct rd *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    const char *v = r->p;
    r->p += n;
    return v;
}

static uint32_t get_u32(struct rd *r)
{
    uint32_t v = 0;
    const char *p = get(r, sizeof v);
    if (p) memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t get_u64(struct rd *r)
{
    uint64_t v = 0;
    const char *p = get(r, sizeof v);
    if (p) memcpy(&v, p, sizeof v);
    return v;
}

static const char *get_str(struct rd *r)
{
    const char *z = r->bad ? NULL : memchr(r->p, 0, (size_t)(r->end - r->p));
    if (!z) {
        r->bad = 1;
        return "";
    }
    const char *s = r->p;
    r->p = z + 1;
    return s;
}

/* What the owner of a rank file tells the others about it: the problems
 * an_run_open would name while opening it, then (if it opened) its job,
 * rank, host, routine names, usable communicators and clock complaint. */
#define SAME_NAMES 0x80000000u     /* the routine names of the block's previous file */

/* A usable communicator definition goes as 1 (key, flags, size, members),
 * or as 2 (the same without members) when the block sent its key whole
 * already: a communicator of many ranks is defined in each of their files. */
static void describe_file(struct an_buf *b, const char *path, struct mlr_file **out, struct an_buf *last,
                          struct an_buf *keys)
{
    struct an_run scratch;
    memset(&scratch, 0, sizeof scratch);
    struct mlr_file *f = open_one(&scratch, path);
    put_u32(b, (uint32_t)scratch.problems_len);
    put(b, scratch.problems ? scratch.problems : "", scratch.problems_len);
    free(scratch.problems);
    put_u32(b, f != NULL);
    *out = f;
    if (!f) return;
    const struct ml_header *h = mlr_header(f);
    put_u32(b, (uint32_t)h->rank);
    put_u32(b, (uint32_t)h->size);
    put_u64(b, h->job_id);
    put(b, h->mpi_impl, sizeof h->mpi_impl);
    put_str(b, mlr_host(f));
    unsigned nr = h->nroutines < 65536 ? h->nroutines : 65536;
    /* the files of one job mostly share their routine table: sent once a block */
    struct an_buf names = {0};
    for (unsigned k = 0; k < nr; k++) put_str(&names, mlr_routine_name(f, (uint16_t)k));
    if (last->p && last->n == names.n && memcmp(last->p, names.p, names.n) == 0) {
        put_u32(b, nr | SAME_NAMES);
        free(names.p);
    } else {
        put_u32(b, nr);
        put(b, names.p, names.n);
        free(last->p);
        *last = names;
    }
    b->oom |= names.oom;
    unsigned n = mlr_ncomms(f);
    if (n > ML_COMM_NONE) n = ML_COMM_NONE;
    put_u32(b, n);
    for (unsigned i = 0; i < n; i++) {
        const struct mlr_comm *c = mlr_comm(f, (uint16_t)i);
        int ok = comm_usable(c, h->size);   /* an accepted file's size is the run's */
        if (!ok) {
            put_u32(b, 0);
            continue;
        }
        int world = !!(c->flags & 2), inter = !!(c->flags & 1);
        uint32_t size = world ? (uint32_t)h->size : c->size + (inter ? c->remote_size : 0);
        uint64_t key = comm_key(c, h->size);
        int sent = 0;
        /* (an inter-communicator's members start with the file's own group: always whole) */
        for (size_t k = 0; !world && !inter && k < keys->n / sizeof key && !sent; k++)
            sent = memcmp(keys->p + k * sizeof key, &key, sizeof key) == 0;
        put_u32(b, sent ? 2 : 1);
        put_u64(b, key);
        put_u32(b, (uint32_t)(world | inter << 1));
        put_u32(b, size);
        if (!world && !sent) {
            put(b, c->members, (size_t)size * sizeof *c->members);
            if (!inter) put(keys, &key, sizeof key);
        }
    }
    b->oom |= keys->oom;
    struct an_clock clk;
    memset(&clk, 0, sizeof clk);
    const char *why = an_clock_init(&clk, h);
    an_clock_free(&clk);
    put_str(b, why ? why : "");
}

struct fent {                   /* one rank file as its owner described it */
    const char *probs;
    uint32_t plen;
    int ok;
    int rank;
    struct job job;
    const char *host;
    uint32_t nr;
    const char *names;          /* nr strings */
    uint32_t ncomms;
    const char *comms;          /* ncomms descriptions */
    const char *clock_why;
};

static void skip_comms(struct rd *r, uint32_t n)
{
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        uint32_t how = get_u32(r);
        if (!how) continue;
        get_u64(r);
        uint32_t fl = get_u32(r), size = get_u32(r);
        if (how == 1 && !(fl & 1)) get(r, (size_t)size * sizeof(int32_t));
    }
}

/* prev: the last file read that had names (its list, for SAME_NAMES) */
static void read_file(struct rd *r, struct fent *e, const struct fent *prev)
{
    memset(e, 0, sizeof *e);
    e->plen = get_u32(r);
    e->probs = get(r, e->plen);
    e->ok = (int)get_u32(r);
    if (!e->ok || r->bad) return;
    e->rank = (int)get_u32(r);
    e->job.size = (int32_t)get_u32(r);
    e->job.id = get_u64(r);
    const char *impl = get(r, 32);
    if (impl) memcpy(e->job.impl, impl, 32);
    for (char *c = e->job.impl; *c; c++)
        if (*c < 32 || *c > 126) *c = '?';
    e->host = get_str(r);
    e->nr = get_u32(r);
    if (e->nr & SAME_NAMES) {
        e->nr &= ~SAME_NAMES;
        if (!prev || prev->nr != e->nr) r->bad = 1;
        e->names = prev ? prev->names : r->p;
    } else {
        e->names = r->p;
        for (uint32_t k = 0; k < e->nr; k++) get_str(r);
    }
    e->ncomms = get_u32(r);
    e->comms = r->p;
    skip_comms(r, e->ncomms);
    e->clock_why = get_str(r);
    if (e->rank < 0 || e->rank >= e->job.size) r->bad = 1;
}

/* Communicator members by key (open addressing; mem NULL: free slot). */
struct members {
    uint64_t *key;
    const int32_t **mem;
    size_t cap, n;
};

static const int32_t *members_of(const struct members *t, uint64_t key)
{
    for (size_t i = t->cap ? key & (t->cap - 1) : 0; t->cap && t->mem[i]; i = (i + 1) & (t->cap - 1))
        if (t->key[i] == key) return t->mem[i];
    return NULL;
}

static int members_put(struct members *t, uint64_t key, const int32_t *mem)
{
    if (!mem || members_of(t, key)) return 0;
    if ((t->n + 1) * 2 > t->cap) {
        struct members g = {calloc(t->cap ? t->cap * 2 : 64, sizeof *g.key),
                            calloc(t->cap ? t->cap * 2 : 64, sizeof *g.mem), t->cap ? t->cap * 2 : 64, 0};
        if (!g.key || !g.mem) {
            free(g.key);
            free(g.mem);
            return -1;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->mem[i]) members_put(&g, t->key[i], t->mem[i]);
        free(t->key);
        free(t->mem);
        *t = g;
    }
    size_t i = key & (t->cap - 1);
    while (t->mem[i]) i = (i + 1) & (t->cap - 1);
    t->key[i] = key;
    t->mem[i] = mem;
    t->n++;
    return 0;
}

void an_run_header_text(struct an_run *run, const struct ml_header *h0, const char *exe)
{
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
    snprintf(run->exe, sizeof run->exe, "%s", exe ? exe : "");
}

/* ---- slices balanced by events (docs/PARALLEL.md) ----------------------- */

/* What a rank file weighs, in bytes of events: its chunks in use by its
 * header, no more than the file holds (a cut file); the file's size when
 * the header is unreadable.  At least 1, so that files that hold nothing
 * still spread over the processes. */
static uint64_t file_weight(const char *path)
{
    uint64_t w = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        struct ml_header h;
        w = (uint64_t)st.st_size;
        if (pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h && !memcmp(h.magic, ML_MAGIC, 8) &&
            h.chunks_off < (uint64_t)st.st_size) {
            uint64_t used = (uint64_t)h.nchunks * h.chunk_size, room = (uint64_t)st.st_size - h.chunks_off;
            w = used < room ? used : room;
        }
    }
    if (fd >= 0) close(fd);
    return w ? w : 1;
}

/* The files [cut[p], cut[p + 1]) are process p's: contiguous blocks of
 * about equal weight (file_weight), the same on every process.  Each
 * process weighs an equal-count block of the files, one allgather brings
 * every weight everywhere, and every process makes the same cut: block k
 * ends at the first file where the weight before it reaches k / P of the
 * whole (with equal weights, an_xch_slice's blocks).  MPILENS_SLICE_BY=ranks:
 * equal counts (an_xch_slice), to compare. */
static void slice_cut(struct an_xch *x, const struct mlr_dir *d, int *cut)
{
    int P = x->size, n = (int)d->n;
    const char *by = getenv("MPILENS_SLICE_BY");
    if (P == 1 || (by && !strcmp(by, "ranks"))) {
        for (int p = 0; p < P; p++) an_xch_slice(n, P, p, &cut[p], &cut[p + 1]);
        return;
    }
    int lo, hi;
    an_xch_slice(n, P, x->rank, &lo, &hi);
    uint64_t *mine = malloc(((size_t)(hi - lo) + 1) * sizeof *mine);
    size_t *lens = malloc((size_t)P * sizeof *lens);
    if (!mine || !lens) x->fail(x, "mpilens: out of memory");
    for (int i = lo; i < hi; i++) mine[i - lo] = file_weight(d->files[i]);
    void *all = NULL;
    if (an_xch_allgather(x, mine, (size_t)(hi - lo) * sizeof *mine, &all, lens) != 0)
        x->fail(x, "mpilens: the exchange failed");
    size_t got = 0;
    for (int p = 0; p < P; p++) got += lens[p];
    if (got != (size_t)n * sizeof *mine)
        x->fail(x, "mpilens: the processes of the analysis disagree on the rank files (bad exchange)");
    const uint64_t *w = all;
    unsigned __int128 total = 0, sum = 0;
    for (int i = 0; i < n; i++) total += w[i];
    cut[0] = 0;
    int i = 0;
    for (int k = 1; k < P; k++) {
        while (i < n && sum * (unsigned)P < total * (unsigned)k) sum += w[i++];
        cut[k] = i;
    }
    cut[P] = n;
    free(all);
    free(lens);
    free(mine);
}

int an_run_open_slice(const char *dir, struct an_xch *x, struct an_run *run)
{
    memset(run, 0, sizeof *run);
    run->dir = strdup(dir);
    struct mlr_dir d;
    int err = mlr_dir_scan(dir, &d);
    char *single[1];
    if (err == MLR_EDIR) {
        /* one rank file: process 0 says whether it is one */
        int64_t eio = 0;
        if (x->rank == 0) {
            struct mlr_file *f;
            eio = mlr_open(dir, &f) == MLR_EIO;
            if (f) mlr_close(f);
        }
        x->bcast(x, &eio, sizeof eio);
        if (eio) {
            problem(run, "%s: does not exist or is not a run directory (give the directory the run wrote, "
                         "e.g. mpilens-app-1234/)", dir);
            return MLR_EDIR;
        }
        single[0] = strdup(dir);
        d.path = NULL;
        d.n = 1;
        d.files = single;
    } else if (err) {
        problem(run, "%s: %s", dir, mlr_strerror(err));
        return err;
    }
    run->nfiles = d.n;
    int P = x->size;
    int *cut = malloc(((size_t)P + 1) * sizeof *cut);
    if (!cut) x->fail(x, "mpilens: out of memory");
    slice_cut(x, &d, cut);
    int flo = cut[x->rank], fhi = cut[x->rank + 1];
    struct mlr_file **fs = calloc((size_t)(fhi - flo) + 1, sizeof *fs);
    struct fent *fe = calloc(d.n, sizeof *fe);
    struct an_buf b = {0};
    if (!fs || !fe) x->fail(x, "mpilens: out of memory");
    struct an_buf last = {0}, keys = {0};
    for (int i = flo; i < fhi; i++) describe_file(&b, d.files[i], &fs[i - flo], &last, &keys);
    free(last.p);
    free(keys.p);
    if (b.oom) x->fail(x, "mpilens: out of memory");
    size_t *lens = malloc((size_t)P * sizeof *lens);
    void *all = NULL;
    if (!lens || an_xch_allgather(x, b.p, b.n, &all, lens) != 0) x->fail(x, "mpilens: the exchange failed");
    size_t total = 0;
    for (int p = 0; p < P; p++) total += lens[p];
    free(lens);
    free(b.p);
    struct rd r = {all, (const char *)all + total, 0};
    for (unsigned i = 0, prev = UINT32_MAX; i < d.n; i++) {
        read_file(&r, &fe[i], prev == UINT32_MAX ? NULL : &fe[prev]);
        if (fe[i].ok) prev = i;
    }
    if (r.bad) x->fail(x, "mpilens: the processes of the analysis disagree on the rank files (bad exchange)");

    struct an_slice *sl = calloc(1, sizeof *sl);
    if (!sl) x->fail(x, "mpilens: out of memory");
    run->slice = sl;
    sl->x = x;
    sl->blob = all;
    sl->single = d.files == single;
    sl->files = calloc((size_t)(fhi - flo) + 1, sizeof *sl->files);
    if (!sl->files) x->fail(x, "mpilens: out of memory");
    for (int i = flo; i < fhi; i++)
        if (!(sl->files[sl->nfiles++] = strdup(d.files[i]))) x->fail(x, "mpilens: out of memory");
    /* as an_run_open: problems file by file, the job most files belong to */
    struct job *jobs = calloc(d.n ? d.n : 1, sizeof *jobs);
    unsigned njobs = 0;
    if (!jobs) x->fail(x, "mpilens: out of memory");
    for (unsigned i = 0; i < d.n; i++) {
        for (const char *p = fe[i].probs; p && p < fe[i].probs + fe[i].plen; p += strlen(p) + 1) problem(run, "%s", p);
        if (!fe[i].ok) continue;
        unsigned k;
        for (k = 0; k < njobs && !job_eq(&jobs[k], &fe[i].job); k++) {
        }
        if (k == njobs) jobs[njobs++] = fe[i].job;
        jobs[k].votes++;
    }
    unsigned best = 0;
    for (unsigned k = 1; k < njobs; k++)
        if (jobs[k].votes > jobs[best].votes) best = k;
    if (njobs) run->size = jobs[best].size;
    int *gfile = malloc(((size_t)run->size + 1) * sizeof *gfile);   /* world rank -> its file */
    run->slot = malloc(((size_t)run->size + 1) * sizeof *run->slot);
    sl->owner = malloc(((size_t)run->size + 1) * sizeof *sl->owner);
    sl->host = calloc((size_t)run->size + 1, sizeof *sl->host);
    run->ranks = calloc((size_t)(fhi - flo) + 1, sizeof *run->ranks);
    if (!gfile || !run->slot || !sl->owner || !sl->host || !run->ranks) x->fail(x, "mpilens: out of memory");
    for (int k = 0; k < run->size; k++) gfile[k] = run->slot[k] = sl->owner[k] = -1;
    unsigned naccepted = 0;
    for (unsigned i = 0; i < d.n; i++) {
        if (!fe[i].ok) continue;
        const struct job *j = &fe[i].job;
        if (!job_eq(j, &jobs[best])) {
            problem(run, "%s: belongs to another job (job id %llu, %d ranks, %s runtime; the other files: "
                         "job id %llu, %d ranks, %s); skipped",
                    d.files[i], (unsigned long long)j->id, j->size, j->impl, (unsigned long long)jobs[best].id,
                    jobs[best].size, jobs[best].impl);
            continue;
        }
        if (gfile[fe[i].rank] >= 0) {
            problem(run, "%s: a second file for rank %d (the first is %s); skipped", d.files[i], fe[i].rank,
                    d.files[gfile[fe[i].rank]]);
            continue;
        }
        gfile[fe[i].rank] = (int)i;
        naccepted++;
    }
    free(jobs);
    int *sorted = calloc(naccepted + 1, sizeof *sorted);
    if (!sorted) x->fail(x, "mpilens: out of memory");
    unsigned ns = 0;
    for (int k = 0; k < run->size; k++)
        if (gfile[k] >= 0) sorted[ns++] = k;
    int rc = 0;
    if (naccepted == 0) {
        problem(run, "%s: no rank file could be read", dir);
        rc = MLR_ENOFILES;
    } else {
        describe_missing(run, sorted, ns);
        /* the run's numbering: names, then communicators, rank by rank */
        for (unsigned q = 0; q < ns; q++) {
            const struct fent *e = &fe[gfile[sorted[q]]];
            struct rd n = {e->names, (const char *)all + total, 0};
            for (uint32_t k = 0; k < e->nr; k++) intern(run, get_str(&n));
        }
        /* members sent once a block: by key, from the first file that sent them */
        struct members mt = {0};
        for (unsigned i = 0; i < d.n; i++) {
            struct rd c = {fe[i].comms, (const char *)all + total, 0};
            for (uint32_t k = 0; fe[i].ok && k < fe[i].ncomms; k++) {
                uint32_t how = get_u32(&c);
                if (!how) continue;
                uint64_t key = get_u64(&c);
                uint32_t fl = get_u32(&c), size = get_u32(&c);
                if (how == 1 && !(fl & 1) && members_put(&mt, key, (const int32_t *)get(&c, (size_t)size * 4)))
                    x->fail(x, "mpilens: out of memory");
            }
        }
        for (unsigned q = 0; q < ns; q++) {
            const struct fent *e = &fe[gfile[sorted[q]]];
            struct rd c = {e->comms, (const char *)all + total, 0};
            for (uint32_t i = 0; i < e->ncomms; i++) {
                uint32_t how = get_u32(&c);
                if (!how) continue;
                uint64_t key = get_u64(&c);
                uint32_t fl = get_u32(&c), size = get_u32(&c);
                const int32_t *mem = NULL;
                if (!(fl & 1) && how == 1) mem = (const int32_t *)get(&c, (size_t)size * sizeof(int32_t));
                else if (!(fl & 1) && !(mem = members_of(&mt, key)))
                    x->fail(x, "mpilens: the processes of the analysis disagree on a communicator (bad exchange)");
                comm_add(run, key, fl & 1, !!(fl & 2), size, mem, e->rank);
            }
        }
        free(mt.key);
        free(mt.mem);
        for (unsigned q = 0; q < ns; q++) {   /* the last process whose block starts at or before the file */
            int a = 0, b = P - 1, f = gfile[sorted[q]];
            while (a < b) {
                int mid = a + (b - a + 1) / 2;
                if (cut[mid] <= f) a = mid;
                else b = mid - 1;
            }
            sl->owner[sorted[q]] = a;
        }
        for (unsigned q = 0; q < ns; q++) sl->host[sorted[q]] = fe[gfile[sorted[q]]].host;
        memcpy(run->mpi_impl, fe[gfile[sorted[0]]].job.impl, 32);
    }
    /* this process's ranks: its files that were accepted */
    for (int i = flo; i < fhi; i++) {
        struct mlr_file *f = fs[i - flo];
        if (!f) continue;
        if (rc || gfile[fe[i].rank] != i) {
            mlr_close(f);
            continue;
        }
        run->ranks[run->n].f = f;
        run->ranks[run->n++].rank = fe[i].rank;
    }
    qsort(run->ranks, run->n, sizeof *run->ranks, rank_cmp);
    for (unsigned i = 0; i < run->n; i++) {
        run->slot[run->ranks[i].rank] = (int)i;
        rank_setup(run, &run->ranks[i]);   /* names and communicators are known: lookups */
    }
    for (unsigned q = 0; !rc && q < ns; q++)
        if (fe[gfile[sorted[q]]].clock_why[0])
            problem(run, "%s: %s", d.files[gfile[sorted[q]]], fe[gfile[sorted[q]]].clock_why);
    free(sorted);
    free(gfile);
    free(cut);
    free(fs);
    free(fe);
    if (d.files == single) free(single[0]);
    else mlr_dir_free(&d);
    return rc;
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
    for (unsigned i = 0; i < run->ncomms; i++) {
        free(run->comms[i].src);
        free(run->comms[i].nsrc);
    }
    free(run->comms);
    free(run->problems);
    free(run->dir);
    if (run->slice) {
        free(run->slice->owner);
        free(run->slice->host);
        free(run->slice->blob);
        for (unsigned i = 0; i < run->slice->nfiles; i++) free(run->slice->files[i]);
        free(run->slice->files);
        free(run->slice);
    }
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
