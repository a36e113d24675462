/*
 * reader.c — see reader.h.  Every offset and length read from a file is
 * checked against the mapping before use.
 */
#include "reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct chunk_ref {
    uint32_t thread, seq;
    uint64_t tid, base;
    const uint8_t *data;
    uint32_t bytes;
};

struct mlr_file {
    char *path;
    const uint8_t *base;
    size_t len;
    struct ml_header h;          /* copy: fields used for decisions */
    char host[65], mpi_version[257], exe[513];
    const char **routines;
    unsigned nroutines;
    const uint64_t *sites;
    unsigned nsites;
    const uint64_t *chains;      /* call chains (mlformat.h), NULL if none */
    unsigned nchains, depth;     /* entries, frames per entry (1 without chains) */
    unsigned nmodules;
    struct ml_module *modules;
    struct mlr_comm *comms;
    unsigned ncomms;
    struct mlr_type *types;
    unsigned ntypes;
    struct chunk_ref *chunks;    /* sorted by (thread, seq) */
    unsigned nchunks;
    double ns_per_tick;
    char *warn;
    size_t warn_len;
};

static void warnf(struct mlr_file *f, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    char *w = realloc(f->warn, f->warn_len + (size_t)n + 2);
    if (!w) return;
    f->warn = w;
    memcpy(w + f->warn_len, buf, (size_t)n + 1);
    f->warn_len += (size_t)n + 1;
    w[f->warn_len] = 0;
}

const char *mlr_warnings(const struct mlr_file *f)
{
    return f->warn_len ? f->warn : NULL;
}

const char *mlr_strerror(int err)
{
    switch (err) {
    case MLR_OK: return "success";
    case MLR_EIO: return "cannot be opened or mapped";
    case MLR_EACCES: return "cannot be opened: permission denied";
    case MLR_EMAGIC: return "is not an mpilens rank file (wrong magic)";
    case MLR_EVERSION: return "has a format version this mpilens does not read";
    case MLR_ETRUNC: return "is cut before the end of its header";
    case MLR_EENDIAN: return "was written on a machine of the other byte order";
    case MLR_EDIR: return "is not a readable directory";
    case MLR_ENOFILES: return "holds no rank files (rank-NNNNN.mlt)";
    }
    return "unknown error";
}

static void cstr(char *dst, size_t n, const char *src, size_t srcmax)
{
    size_t l = strnlen(src, srcmax);
    if (l >= n) l = n - 1;
    for (size_t i = 0; i < l; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c < 32 || c == 127) ? '?' : (char)c;
    }
    dst[l] = 0;
}

/* Is [off, off+n) inside the mapping? */
static int in_file(const struct mlr_file *f, uint64_t off, uint64_t n)
{
    return off <= f->len && n <= f->len - off;
}

/* Chunk i's pages are read and will not be needed soon: give them back.
 * The mapping stays valid (a later read faults them in again from the page
 * cache), but the reader's resident memory stays bounded by a few chunks per
 * file however long the run was. */
static void chunk_release(const struct mlr_file *f, const struct chunk_ref *c)
{
    uintptr_t start = (uintptr_t)(c->data - sizeof(struct ml_chunk));
    uintptr_t end = start + f->h.chunk_size, limit = (uintptr_t)f->base + f->len;
    if (end > limit) end = limit;
    start &= ~(uintptr_t)4095;
    if (end > start) madvise((void *)start, end - start, MADV_DONTNEED);
}

static int chunk_cmp(const void *a, const void *b)
{
    const struct chunk_ref *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return 0;
}

/* Length in bytes of the record at p with `avail` bytes left; 0 if invalid. */
static uint32_t rec_len(const struct ml_rec *r, uint32_t avail)
{
    if (avail < sizeof *r) return 0;
    uint32_t len = r->words ? (uint32_t)r->words * 8 : r->dur;
    if (len < sizeof *r || len % 8 || len > avail) return 0;
    if (r->words == 1) return 0;
    return len;
}

static int comms_grow(struct mlr_file *f, unsigned index)
{
    if (index < f->ncomms) return 1;
    unsigned n = index + 1;
    struct mlr_comm *c = realloc(f->comms, n * sizeof *c);
    if (!c) return 0;
    memset(c + f->ncomms, 0, (n - f->ncomms) * sizeof *c);
    f->comms = c;
    f->ncomms = n;
    return 1;
}

/* MPI_Comm_set_name: the name of definition index (before or after it) */
static void add_comm_name(struct mlr_file *f, const struct ml_rec *r, uint32_t len)
{
    if (len < sizeof *r + sizeof(struct ml_comm_name)) return;
    const struct ml_comm_name *d = (const void *)(r + 1);
    if (d->index >= ML_COMM_NONE || !comms_grow(f, d->index)) return;
    struct mlr_comm *c = &f->comms[d->index];
    size_t n = strnlen(d->name, sizeof d->name);
    memcpy(c->name, d->name, n);
    c->name[n] = 0;
}

static void add_comm(struct mlr_file *f, const struct ml_rec *r, uint32_t len)
{
    if (len < sizeof *r + sizeof(struct ml_comm_def)) return;
    const struct ml_comm_def *d = (const void *)(r + 1);
    if (d->index >= ML_COMM_NONE) return;
    uint64_t nm = (d->flags & 2) ? 0 : (uint64_t)d->size + d->remote_size;
    if (sizeof *r + sizeof *d + nm * 4 > len) return;
    if (d->index >= f->ncomms) {
        unsigned n = d->index + 1;
        struct mlr_comm *c = realloc(f->comms, n * sizeof *c);
        if (!c) return;
        memset(c + f->ncomms, 0, (n - f->ncomms) * sizeof *c);
        f->comms = c;
        f->ncomms = n;
    }
    struct mlr_comm *c = &f->comms[d->index];
    c->valid = 1;
    c->size = d->size;
    c->remote_size = d->remote_size;
    c->flags = d->flags;
    c->handle = d->handle;
    c->global_id = d->global_id;
    c->members = nm ? (const int32_t *)(d + 1) : NULL;
    c->nsrc = -1;
    c->srcs = NULL;
    if ((d->flags & 4) && sizeof *r + sizeof *d + (nm + 1) * 4 <= len) {
        const int32_t *tp = (const int32_t *)(d + 1) + nm;
        if (tp[0] >= 0 && sizeof *r + sizeof *d + (nm + 1 + (uint64_t)tp[0]) * 4 <= len) {
            c->nsrc = tp[0];
            c->srcs = tp + 1;
        }
    }
}

static void add_type(struct mlr_file *f, const struct ml_rec *r, uint32_t len)
{
    if (len < sizeof *r + sizeof(struct ml_type_def)) return;
    const struct ml_type_def *d = (const void *)(r + 1);
    if (d->index >= ML_TYPE_NONE) return;
    if (d->index >= f->ntypes) {
        unsigned n = d->index + 1;
        struct mlr_type *t = realloc(f->types, n * sizeof *t);
        if (!t) return;
        memset(t + f->ntypes, 0, (n - f->ntypes) * sizeof *t);
        f->types = t;
        f->ntypes = n;
    }
    struct mlr_type *t = &f->types[d->index];
    t->valid = 1;
    t->size = d->size;
    cstr(t->name, sizeof t->name, d->name, sizeof d->name);
}

static int load(struct mlr_file *f)
{
    if (f->len < sizeof(struct ml_header)) {
        /* what there is must begin the magic: a 1-7 byte file that does
         * not is no rank file, not a cut one */
        if (f->len && memcmp(f->base, ML_MAGIC, f->len < 8 ? f->len : 8) != 0) return MLR_EMAGIC;
        return MLR_ETRUNC;
    }
    memcpy(&f->h, f->base, sizeof f->h);
    struct ml_header *h = &f->h;
    if (memcmp(h->magic, ML_MAGIC, 8) != 0) return MLR_EMAGIC;
    if (h->endian != 0x01020304) return MLR_EENDIAN;
    if (h->version != ML_VERSION) return MLR_EVERSION;
    /* Tables at offsets the writer never produces (it aligns them) are
     * corrupt: treat them as absent rather than read them misaligned. */
    if (h->routines_off % 4 || h->modules_off % 8 || h->sites_off % 8 || h->live_off % 8 || h->chunks_off % 8) {
        warnf(f, "%s: header has misaligned table offsets (corrupt); misaligned tables ignored", f->path);
        if (h->routines_off % 4) h->routines_off = UINT64_MAX;
        if (h->modules_off % 8) h->modules_off = UINT64_MAX;
        if (h->sites_off % 8) h->sites_off = UINT64_MAX;
        if (h->live_off % 8) h->live_off = UINT64_MAX;
        if (h->chunks_off % 8) h->chunks_off = UINT64_MAX;
    }
    cstr(f->host, sizeof f->host, h->host, sizeof h->host);
    cstr(f->mpi_version, sizeof f->mpi_version, h->mpi_version, sizeof h->mpi_version);
    {   /* first line only */
        size_t l = strcspn(h->mpi_version, "\r\n");
        if (l < strlen(f->mpi_version)) f->mpi_version[l] = 0;
    }
    cstr(f->exe, sizeof f->exe, h->exe, sizeof h->exe);

    /* routine names */
    if (in_file(f, h->routines_off, 4)) {
        const char *p = (const char *)f->base + h->routines_off;
        uint32_t n = *(const uint32_t *)p;
        const char *end = (const char *)f->base + f->len;
        p += 4;
        if (n > 65536) n = 0;
        f->routines = calloc(n ? n : 1, sizeof *f->routines);
        for (uint32_t i = 0; f->routines && i < n && p < end; i++) {
            const char *z = memchr(p, 0, (size_t)(end - p));
            if (!z) break;
            f->routines[i] = p;
            f->nroutines = i + 1;
            p = z + 1;
        }
    }
    if (f->nroutines == 0) warnf(f, "%s: routine-name table missing", f->path);

    /* sites and modules */
    uint64_t ns = h->max_sites;
    if (ns > (1u << 24)) ns = 0;
    while (ns && !in_file(f, h->sites_off, ns * 8)) ns /= 2;
    f->sites = ns ? (const uint64_t *)(f->base + h->sites_off) : NULL;
    f->nsites = (unsigned)ns;
    f->depth = 1;
    if (h->chains_off) {
        uint64_t nc = h->max_chains, d = h->chain_depth;
        if (h->chains_off % 8 || d < 2 || d > ML_MAX_DEPTH || nc == 0 || nc > f->nsites ||
            !in_file(f, h->chains_off, nc * d * 8)) {
            warnf(f, "%s: call-chain table invalid or cut (corrupt); call sites are shown one frame deep", f->path);
        } else {
            f->chains = (const uint64_t *)(f->base + h->chains_off);
            f->nchains = (unsigned)nc;
            f->depth = (unsigned)d;
        }
    }
    uint64_t nm = h->nmodules;
    if (nm > h->max_modules || nm > 65536) nm = 0;
    if (!in_file(f, h->modules_off, nm * sizeof(struct ml_module))) nm = 0;
    f->modules = calloc(nm ? nm : 1, sizeof *f->modules);
    if (f->modules && nm) {
        memcpy(f->modules, f->base + h->modules_off, nm * sizeof *f->modules);
        for (unsigned i = 0; i < nm; i++) f->modules[i].path[sizeof f->modules[i].path - 1] = 0;
        f->nmodules = (unsigned)nm;
    }

    /* clock */
    f->ns_per_tick = 1.0;
    if (h->clock_kind == 1) {
        if (h->anchor1_ticks > h->anchor0_ticks && h->anchor1_ns > h->anchor0_ns)
            f->ns_per_tick = ((double)h->anchor1_ns - (double)h->anchor0_ns) /
                             (double)(h->anchor1_ticks - h->anchor0_ticks);
        else
            warnf(f, "%s: no clock calibration; times assume 1 ns per tick", f->path);
    }

    /* chunks */
    uint64_t cs = h->chunk_size;
    if (cs < 4096 || cs > (64u << 20) || cs % 8) {
        warnf(f, "%s: invalid chunk size %llu; no events read", f->path, (unsigned long long)cs);
        return MLR_OK;
    }
    uint64_t nc = h->nchunks;
    if (h->chunks_off > f->len) {
        if (nc && h->chunks_off != UINT64_MAX)
            warnf(f, "%s: file is cut before its events: 0 of %llu chunks present", f->path,
                  (unsigned long long)nc);
        nc = 0;
    } else if (nc > (f->len - h->chunks_off + cs - 1) / cs) {
        uint64_t have = (f->len - h->chunks_off + cs - 1) / cs;
        warnf(f, "%s: file is cut: %llu of %llu chunks present; read up to the last complete record",
              f->path, (unsigned long long)have, (unsigned long long)nc);
        nc = have;
    } else if (nc && f->len < h->chunks_off + nc * cs && f->len >= h->chunks_off) {
        /* all chunks start inside the file; the cut is in the last one */
        uint64_t last = h->chunks_off + (nc - 1) * cs;
        if (f->len - last >= sizeof(struct ml_chunk)) {
            const struct ml_chunk *c = (const void *)(f->base + last);
            if (sizeof *c + (uint64_t)c->committed <= f->len - last)
                warnf(f, "%s: file is cut at byte %llu of %llu, after its last complete record; nothing lost",
                      f->path, (unsigned long long)f->len, (unsigned long long)(h->chunks_off + nc * cs));
        }
    }
    f->chunks = calloc(nc ? nc : 1, sizeof *f->chunks);
    if (!f->chunks) return MLR_EIO;
    for (uint64_t i = 0; i < nc; i++) {
        uint64_t off = h->chunks_off + i * cs;
        if (!in_file(f, off, sizeof(struct ml_chunk))) {
            warnf(f, "%s: file is cut inside chunk %llu's header", f->path, (unsigned long long)i);
            break;
        }
        const struct ml_chunk *c = (const void *)(f->base + off);
        if (c->magic == 0 && c->committed == 0) continue;   /* prepared, never used */
        if (c->magic != ML_CHUNK_MAGIC) {
            warnf(f, "%s: chunk %llu has no valid header; skipped", f->path, (unsigned long long)i);
            continue;
        }
        uint64_t bytes = c->committed;
        if (bytes > cs - sizeof *c) {
            warnf(f, "%s: chunk %llu claims %llu bytes; capped", f->path, (unsigned long long)i,
                  (unsigned long long)bytes);
            bytes = cs - sizeof *c;
        }
        if (!in_file(f, off + sizeof *c, bytes)) {
            uint64_t have = f->len - off - sizeof *c;
            warnf(f, "%s: file is cut in chunk %llu (%llu of %llu bytes); read up to the last complete record",
                  f->path, (unsigned long long)i, (unsigned long long)have, (unsigned long long)bytes);
            bytes = have;
        }
        struct chunk_ref *r = &f->chunks[f->nchunks++];
        r->thread = c->thread;
        r->seq = c->seq;
        r->tid = c->tid;
        r->base = c->base_ticks;
        r->data = (const uint8_t *)(c + 1);
        r->bytes = (uint32_t)bytes;
    }
    qsort(f->chunks, f->nchunks, sizeof *f->chunks, chunk_cmp);

    /* definitions: one pass over all records */
    for (unsigned i = 0; i < f->nchunks; i++) {
        const struct chunk_ref *c = &f->chunks[i];
        uint32_t pos = 0;
        /* the call record just read, while only TIME records followed it:
         * a wrapper records the call, then defines the communicator it
         * returned (a definition on first use comes before its call) */
        const struct ml_rec *call = NULL;
        while (pos < c->bytes) {
            const struct ml_rec *r = (const void *)(c->data + pos);
            __builtin_prefetch(c->data + pos + 1024);   /* a hint: never faults */
            uint32_t len = rec_len(r, c->bytes - pos);
            if (!len) {
                if (c->bytes - pos >= sizeof *r)
                    warnf(f, "%s: corrupt record in chunk of thread %u at byte %u; rest of chunk skipped",
                          f->path, c->thread, pos);
                break;
            }
            if (r->type == ML_REC_COMM) {
                add_comm(f, r, len);
                const struct ml_comm_def *d = (const void *)(r + 1);
                if (call && len >= sizeof *r + sizeof *d && d->index < f->ncomms) {
                    struct mlr_comm *cm = &f->comms[d->index];
                    cm->has_prev = 1;
                    cm->prev_routine = call->routine & (uint16_t)~ML_ROUTINE_FORTRAN;
                    cm->prev_site = call->site;
                }
                call = NULL;
            } else if (r->type == ML_REC_TYPE) {
                add_type(f, r, len);
            } else if (r->type == ML_REC_COMM_NAME) {
                add_comm_name(f, r, len);   /* (after its call: leaves `call` for a definition) */
            } else if (r->type >= ML_REC_CALL && r->type <= ML_REC_COMPLETE) {
                call = r;
            } else if (r->type != ML_REC_TIME) {
                call = NULL;
            }
            pos += len;
        }
        chunk_release(f, c);
    }
    return MLR_OK;
}

int mlr_open(const char *path, struct mlr_file **out)
{
    *out = NULL;
    /* O_NONBLOCK: a FIFO under a rank file's name would block the open
     * forever; refused below as not a regular file */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return errno == EACCES || errno == EPERM ? MLR_EACCES : MLR_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return MLR_EIO;
    }
    struct mlr_file *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        return MLR_EIO;
    }
    f->path = strdup(path);
    f->len = (size_t)st.st_size;
    if (f->len) {
        void *m = mmap(NULL, f->len, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            close(fd);
            mlr_close(f);
            return MLR_EIO;
        }
        f->base = m;
    }
    close(fd);
    int err = load(f);
    if (err) {
        mlr_close(f);
        return err;
    }
    *out = f;
    return MLR_OK;
}

void mlr_close(struct mlr_file *f)
{
    if (!f) return;
    if (f->base) munmap((void *)f->base, f->len);
    free(f->path);
    free(f->routines);
    free(f->modules);
    free(f->comms);
    free(f->types);
    free(f->chunks);
    free(f->warn);
    free(f);
}

const char *mlr_path(const struct mlr_file *f) { return f->path; }
const struct ml_header *mlr_header(const struct mlr_file *f) { return &f->h; }
const char *mlr_host(const struct mlr_file *f) { return f->host; }
const char *mlr_mpi_version(const struct mlr_file *f) { return f->mpi_version; }
const char *mlr_exe(const struct mlr_file *f) { return f->exe; }
int mlr_rank(const struct mlr_file *f) { return f->h.rank; }
unsigned mlr_nmodules(const struct mlr_file *f) { return f->nmodules; }

const struct ml_module *mlr_module(const struct mlr_file *f, unsigned i)
{
    return i < f->nmodules ? &f->modules[i] : NULL;
}

const char *mlr_routine_name(const struct mlr_file *f, uint16_t routine)
{
    routine &= (uint16_t)~ML_ROUTINE_FORTRAN;
    if (routine < f->nroutines && f->routines[routine]) return f->routines[routine];
    return "MPI_(unknown)";
}

int mlr_routine_id(const struct mlr_file *f, const char *name)
{
    for (unsigned i = 0; i < f->nroutines; i++)
        if (f->routines[i] && strcmp(f->routines[i], name) == 0) return (int)i;
    return -1;
}

uint64_t mlr_site_addr(const struct mlr_file *f, uint32_t site)
{
    if (site == 0 || site > f->nsites) return 0;
    return __atomic_load_n(&f->sites[site - 1], __ATOMIC_ACQUIRE);
}

unsigned mlr_site_chain(const struct mlr_file *f, uint32_t site, uint64_t *addrs, unsigned max)
{
    uint64_t a = mlr_site_addr(f, site);   /* (acquire: its chain entry was written before) */
    if (!a || max == 0) return 0;
    addrs[0] = a;
    unsigned n = 1;
    if (f->chains && site <= f->nchains) {
        const uint64_t *c = f->chains + (size_t)(site - 1) * f->depth;
        if (c[0] == a)                      /* else damaged: the innermost frame alone */
            for (unsigned i = 1; i < f->depth && n < max && c[i]; i++) addrs[n++] = c[i];
    }
    return n;
}

unsigned mlr_chain_depth(const struct mlr_file *f)
{
    return f->depth;
}

const struct mlr_comm *mlr_comm(const struct mlr_file *f, uint16_t index)
{
    return index < f->ncomms && f->comms[index].valid ? &f->comms[index] : NULL;
}

unsigned mlr_ncomms(const struct mlr_file *f)
{
    return f->ncomms;
}

const struct mlr_type *mlr_type(const struct mlr_file *f, uint16_t index)
{
    return index < f->ntypes && f->types[index].valid ? &f->types[index] : NULL;
}

int mlr_world_rank(const struct mlr_file *f, uint16_t comm, int rank, int remote)
{
    const struct mlr_comm *c = mlr_comm(f, comm);
    if (!c || rank < 0) return -1;
    if (c->flags & 2) return (uint32_t)rank < c->size ? rank : -1;
    if (!c->members) return -1;
    if (remote && (c->flags & 1)) {
        if ((uint32_t)rank >= c->remote_size) return -1;
        return c->members[c->size + (uint32_t)rank];
    }
    if ((uint32_t)rank >= c->size) return -1;
    return c->members[rank];
}

int64_t mlr_ticks_to_ns(const struct mlr_file *f, uint64_t ticks)
{
    if (f->h.clock_kind != 1) return (int64_t)ticks;
    /* arithmetic that wraps rather than overflows: the anchors may be garbage */
    double d = (double)(int64_t)(ticks - f->h.anchor0_ticks) * f->ns_per_tick;
    int64_t ns = d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
    return (int64_t)((uint64_t)f->h.anchor0_ns + (uint64_t)ns);
}

unsigned mlr_nthreads(const struct mlr_file *f)
{
    unsigned n = f->h.nthreads;
    if (n > f->h.max_threads) n = f->h.max_threads;
    /* no more than the live slots the file holds (a damaged header may say anything) */
    uint64_t fit = f->h.live_off < f->len ? (f->len - f->h.live_off) / sizeof(struct ml_live) : 0;
    return n > fit ? (unsigned)fit : n;
}

int mlr_live(const struct mlr_file *f, unsigned i, struct ml_live *out)
{
    uint64_t off = f->h.live_off + (uint64_t)i * sizeof(struct ml_live);
    if (i >= f->h.max_threads || f->h.live_off > f->len || !in_file(f, off, sizeof *out)) return -1;
    const volatile struct ml_live *l = (const volatile void *)(f->base + off);
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s1 = l->seq;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        memcpy(out, (const void *)l, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint32_t s2 = l->seq;
        if (s1 == s2 && !(s1 & 1)) return 0;
    }
    return -1;
}

/* ---- iteration ------------------------------------------------------------ */

struct cursor {
    unsigned first, last;        /* chunk range of this thread */
    unsigned ci;                 /* current chunk */
    uint32_t pos;
    uint64_t ticks;              /* start of the previous record */
    int have;                    /* ev is a pending event */
    unsigned thread;             /* live-slot index */
    int tail;                    /* the thread's live slot is in a call: give it last */
    struct ml_live live;
    struct mlr_event ev;
    struct ml_done *done;
    uint32_t done_cap;
};

struct mlr_iter {
    struct mlr_file *f;
    unsigned n;
    struct cursor *c;
    struct ml_done *out;
    uint32_t out_cap;
};

/* The next record of a thread's stream, crossing chunks; NULL at the end. */
static const struct ml_rec *peek(struct mlr_file *f, struct cursor *c, uint32_t *len)
{
    while (c->ci <= c->last && c->ci < f->nchunks) {
        const struct chunk_ref *ch = &f->chunks[c->ci];
        if (c->pos < ch->bytes) {
            const struct ml_rec *r = (const void *)(ch->data + c->pos);
            __builtin_prefetch(ch->data + c->pos + 1024);
            *len = rec_len(r, ch->bytes - c->pos);
            if (*len) return r;
        }
        chunk_release(f, ch);
        c->ci++;
        c->pos = 0;
        if (c->ci <= c->last && c->ci < f->nchunks) c->ticks = f->chunks[c->ci].base;
    }
    return NULL;
}

static int push_done(struct cursor *c, uint32_t *n, const struct ml_done *d, uint32_t m)
{
    if (m == 0) return 0;
    if (*n + m > c->done_cap) {
        uint32_t cap = (*n + m) * 2 + 16;
        struct ml_done *p = realloc(c->done, cap * sizeof *p);
        if (!p) return -1;
        c->done = p;
        c->done_cap = cap;
    }
    memcpy(c->done + *n, d, m * sizeof *d);
    *n += m;
    return 0;
}

static void done_part(struct cursor *c, uint32_t *n, const struct ml_rec *r, uint32_t len)
{
    if (len < 24) return;
    uint32_t m = *(const uint32_t *)(r + 1);
    if (m > (len - 24) / sizeof(struct ml_done)) m = (len - 24) / sizeof(struct ml_done);
    push_done(c, n, (const struct ml_done *)((const uint8_t *)r + 24), m);
}

static int advance(struct mlr_file *f, struct cursor *c)
{
    uint32_t len;
    const struct ml_rec *r;
    c->have = 0;
    while ((r = peek(f, c, &len)) || c->tail) {
        if (!r) {
            /* the call the thread was in when the file was read */
            struct mlr_event *e = &c->ev;
            const struct ml_live *l = &c->live;
            c->tail = 0;
            if (c->first < f->nchunks && c->ticks == l->t_start) return 0;  /* recorded; stamp not yet */
            memset(e, 0, sizeof *e);
            e->thread = c->thread;
            e->tid = l->tid;
            e->routine = l->routine & (uint16_t)~ML_ROUTINE_FORTRAN;
            e->site = l->site;
            e->type = ML_REC_CALL;
            e->p2p[0].comm = (uint16_t)(l->comm > 0xffff ? ML_COMM_NONE : l->comm);
            e->p2p[0].dtype = ML_TYPE_NONE;
            e->p2p[0].peer = l->peer;
            e->p2p[0].tag = l->tag;
            e->coll.comm = e->p2p[0].comm;
            e->coll.dtype = ML_TYPE_NONE;
            e->coll.root = l->peer;
            e->request = l->aux;
            e->start_ns = mlr_ticks_to_ns(f, l->t_start);
            e->end_ns = mlr_last_ns(f);
            if (e->end_ns < e->start_ns) e->end_ns = e->start_ns;
            e->repeat_end_ns = e->end_ns;
            e->unfinished = 1;
            c->have = 1;
            return 1;
        }
        c->pos += len;
        if (r->type == ML_REC_TIME) {
            c->ticks = (uint64_t)r->dt | (uint64_t)r->dur << 32;
            continue;
        }
        if (r->type < ML_REC_CALL || (r->type > ML_REC_COMPLETE && r->type != ML_REC_IO))
            continue; /* defs, strays */
        struct mlr_event *e = &c->ev;
        /* every field is set below; these only sometimes (a memset of the
         * whole event was a third of the time spent here) */
        memset(e->p2p, 0, sizeof e->p2p);
        memset(&e->coll, 0, sizeof e->coll);
        memset(&e->io, 0, sizeof e->io);
        e->io_name = NULL;
        e->request = 0;
        e->sr_flags = 0;
        e->coll_seq = 0;
        e->has_result = 0;
        e->result = 0;
        e->repeat = 0;
        e->unfinished = 0;
        uint64_t rep_end = 0, rep_busy = UINT64_MAX;
        const struct chunk_ref *ch = &f->chunks[c->ci];
        uint64_t start = c->ticks + r->dt;
        c->ticks = start;
        uint64_t dur = r->dur;
        e->thread = ch->thread;
        e->tid = ch->tid;
        e->routine = r->routine & (uint16_t)~ML_ROUTINE_FORTRAN;
        e->fortran = !!(r->routine & ML_ROUTINE_FORTRAN);
        e->site = r->site;
        e->type = r->type;
        const uint8_t *p = (const uint8_t *)(r + 1);
        uint32_t body = len - 16;
        switch (r->type) {
        case ML_REC_P2P:
        case ML_REC_P2P_REQ:
            if (body >= 16) memcpy(&e->p2p[0], p, 16);
            if (r->type == ML_REC_P2P_REQ && body >= 24) memcpy(&e->request, p + 16, 8);
            break;
        case ML_REC_SENDRECV:
            if (body >= 32) memcpy(e->p2p, p, 32);
            if (body >= 40) memcpy(&e->request, p + 32, 8);   /* MPI_Isendrecv(_replace) */
            if (body >= 48) memcpy(&e->sr_flags, p + 40, 8);
            break;
        case ML_REC_COLL:
            if (body >= 16) memcpy(&e->coll, p, 16);
            if (body >= 32) {
                memcpy(&e->request, p + 16, 8);
                memcpy(&e->coll_seq, p + 24, 8);
            }
            break;
        case ML_REC_IO:
            if (body >= 24) memcpy(&e->io, p, 24);
            if (body > 24 && (e->io.flags & ML_IO_OPEN) && memchr(p + 24, 0, body - 24))
                e->io_name = (const char *)p + 24;
            break;
        }
        uint32_t nd = 0;
        if (r->type == ML_REC_COMPLETE) done_part(c, &nd, r, len);
        /* follow-ups */
        const struct ml_rec *q;
        uint32_t qlen;
        while ((q = peek(f, c, &qlen))) {
            if (q->type == ML_REC_RESULT) {
                e->has_result = 1;
                e->result = (int32_t)q->dt;
            } else if (q->type == ML_REC_LONGDUR) {
                dur = (uint64_t)q->dt | (uint64_t)q->dur << 32;
            } else if (q->type == ML_REC_COMPLETE_MORE && r->type == ML_REC_COMPLETE) {
                done_part(c, &nd, q, qlen);
            } else if (q->type == ML_REC_REPEAT && q->routine == r->routine &&
                       q->site == r->site) {
                /* count and end change together in one 8-byte store while the
                 * writer runs: read them with one load */
                uint64_t w = __atomic_load_n((const uint64_t *)q + 1, __ATOMIC_ACQUIRE);
                e->repeat = (uint32_t)w;
                rep_end = w >> 32;
                if (qlen >= 24)   /* stored before count and end: at least their repeats' */
                    rep_busy = __atomic_load_n((const uint64_t *)q + 2, __ATOMIC_RELAXED);
            } else {
                break;
            }
            c->pos += qlen;
        }
        e->ndone = nd;
        e->done = c->done;
        e->start_ns = mlr_ticks_to_ns(f, start);
        e->end_ns = mlr_ticks_to_ns(f, start + dur);
        e->repeat_end_ns = e->repeat ? mlr_ticks_to_ns(f, start + rep_end) : e->end_ns;
        e->repeat_busy_ns = -1;
        if (e->repeat && rep_busy != UINT64_MAX) {
            /* within the span from the first call's end to the last one's */
            int64_t span = e->repeat_end_ns - e->end_ns;
            int64_t b = (int64_t)((double)rep_busy * f->ns_per_tick + 0.5);
            e->repeat_busy_ns = b < 0 ? 0 : b > span ? (span > 0 ? span : 0) : b;
        }
        c->have = 1;
        return 1;
    }
    return 0;
}

struct mlr_iter *mlr_iter_new(struct mlr_file *f)
{
    struct mlr_iter *it = calloc(1, sizeof *it);
    if (!it) return NULL;
    it->f = f;
    unsigned nt = 0;
    for (unsigned i = 0; i < f->nchunks; i++)
        if (i == 0 || f->chunks[i].thread != f->chunks[i - 1].thread) nt++;
    it->c = calloc(nt ? nt : 1, sizeof *it->c);
    if (!it->c) {
        free(it);
        return NULL;
    }
    for (unsigned i = 0; i < f->nchunks; i++) {
        if (i == 0 || f->chunks[i].thread != f->chunks[i - 1].thread) {
            struct cursor *c = &it->c[it->n++];
            c->first = c->ci = i;
            c->thread = f->chunks[i].thread;
            c->ticks = f->chunks[i].base;
        }
        it->c[it->n - 1].last = i;
    }
    for (unsigned k = 0; k < it->n; k++) advance(f, &it->c[k]);
    return it;
}

struct mlr_iter *mlr_iter_clone(const struct mlr_iter *it, struct mlr_event *last, size_t *bytes)
{
    struct mlr_iter *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->f = it->f;
    c->n = it->n;
    size_t b = sizeof *c + (it->n ? it->n : 1) * sizeof *c->c;
    c->c = malloc((it->n ? it->n : 1) * sizeof *c->c);
    if (!c->c) {
        free(c);
        return NULL;
    }
    if (it->n) memcpy(c->c, it->c, it->n * sizeof *c->c);
    /* of the done lists only what is still to be read: the pending event's
     * (a cursor's) and the one given last (the iterator's) */
    for (unsigned k = 0; k < c->n; k++) {   /* the source's, until copied */
        c->c[k].done = NULL;
        c->c[k].done_cap = 0;
    }
    for (unsigned k = 0; k < c->n; k++) {
        struct cursor *d = &c->c[k];
        uint32_t n = d->have ? d->ev.ndone : 0;
        if (n) {
            if (!(d->done = malloc(n * sizeof *d->done))) {
                mlr_iter_free(c);
                return NULL;
            }
            d->done_cap = n;
            memcpy(d->done, it->c[k].done, d->done_cap * sizeof *d->done);
            b += d->done_cap * sizeof *d->done;
        }
        d->ev.done = d->done;
    }
    uint32_t nout = last && last->done == it->out ? last->ndone : it->out_cap;
    if (nout > it->out_cap) nout = it->out_cap;
    if (nout) {
        if (!(c->out = malloc(nout * sizeof *c->out))) {
            mlr_iter_free(c);
            return NULL;
        }
        memcpy(c->out, it->out, nout * sizeof *c->out);
        c->out_cap = nout;
        b += nout * sizeof *c->out;
    }
    if (last && last->done && last->done == it->out) last->done = c->out;
    if (bytes) *bytes += b;
    return c;
}

int64_t mlr_last_ns(const struct mlr_file *f)
{
    uint64_t t = f->h.anchor1_ticks;
    const volatile struct ml_failure *fl =
        (const volatile void *)(f->base + offsetof(struct ml_header, failure));
    if (f->len >= sizeof(struct ml_header) && fl->kind != ML_FAIL_NONE && fl->ticks > t) t = fl->ticks;
    unsigned n = mlr_nthreads(f);
    for (unsigned i = 0; i < n; i++) {
        struct ml_live l;
        if (mlr_live(f, i, &l) != 0 || !l.used) continue;
        if (l.t_start > t) t = l.t_start;
        if (l.t_end > t) t = l.t_end;
        if (l.t_idle > t) t = l.t_idle;
    }
    return mlr_ticks_to_ns(f, t);
}

void mlr_iter_unfinished(struct mlr_iter *it)
{
    struct mlr_file *f = it->f;
    unsigned n = mlr_nthreads(f);
    const char *join = f->nroutines ? f->routines[f->nroutines - 1] : NULL;
    for (unsigned i = 0; i < n; i++) {
        struct ml_live l;
        if (mlr_live(f, i, &l) != 0 || !l.used) continue;
        if (!(l.t_start > l.t_end && l.t_start > l.t_idle)) continue;   /* not in a call */
        uint16_t rt = l.routine & (uint16_t)~ML_ROUTINE_FORTRAN;
        if (rt >= f->nroutines || (join && rt == f->nroutines - 1 && !strcmp(join, ML_JOIN_NAME)))
            continue;                      /* unknown, or pthread_join (not MPI) */
        struct cursor *c = NULL;
        for (unsigned k = 0; k < it->n; k++)
            if (it->c[k].thread == i) c = &it->c[k];
        if (!c) {                          /* no record yet: a cursor of its own */
            struct cursor *p = realloc(it->c, (it->n + 1) * sizeof *p);
            if (!p) continue;
            it->c = p;
            c = &it->c[it->n++];
            memset(c, 0, sizeof *c);
            c->first = c->ci = f->nchunks;
            c->last = 0;
            c->thread = i;
        }
        c->live = l;
        c->tail = 1;
        if (!c->have) advance(f, c);
    }
}

int mlr_next(struct mlr_iter *it, struct mlr_event *ev)
{
    struct cursor *best = NULL;
    for (unsigned k = 0; k < it->n; k++) {
        struct cursor *c = &it->c[k];
        if (c->have && (!best || c->ev.start_ns < best->ev.start_ns)) best = c;
    }
    if (!best) return 0;
    *ev = best->ev;
    if (ev->ndone) {
        if (ev->ndone > it->out_cap) {
            struct ml_done *p = realloc(it->out, ev->ndone * sizeof *p);
            if (!p) {
                ev->ndone = 0;
            } else {
                it->out = p;
                it->out_cap = ev->ndone;
            }
        }
        if (ev->ndone) memcpy(it->out, best->done, ev->ndone * sizeof *it->out);
        ev->done = it->out;
    } else {
        ev->done = NULL;
    }
    advance(it->f, best);
    return 1;
}

void mlr_iter_free(struct mlr_iter *it)
{
    if (!it) return;
    for (unsigned k = 0; k < it->n; k++) free(it->c[k].done);
    free(it->c);
    free(it->out);
    free(it);
}

uint64_t mlr_event_count(struct mlr_file *f)
{
    struct mlr_iter *it = mlr_iter_new(f);
    struct mlr_event e;
    uint64_t n = 0;
    while (it && mlr_next(it, &e)) n++;
    mlr_iter_free(it);
    return n;
}

/* ---- run directories ---------------------------------------------------- */

static long file_rank(const char *name)
{
    const char *p = NULL;
    if (strncmp(name, "rank-", 5) == 0) p = name + 5;
    else if (strncmp(name, "pid-", 4) == 0) p = name + 4;
    if (!p) return -1;
    char *end;
    long r = strtol(p, &end, 10);
    if (end == p || strcmp(end, ".mlt") != 0 || r < 0) return -1;
    return name[0] == 'p' ? r + (1L << 40) : r;   /* unnamed processes sort last */
}

static int name_cmp(const void *a, const void *b)
{
    const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
    long rx = file_rank(x), ry = file_rank(y);
    return rx < ry ? -1 : rx > ry;
}

int mlr_dir_scan(const char *dir, struct mlr_dir *out)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d) return MLR_EDIR;
    struct dirent *e;
    unsigned cap = 0;
    while ((e = readdir(d))) {
        if (file_rank(e->d_name) < 0) continue;
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(out->files, cap * sizeof *p);
            if (!p) break;
            out->files = p;
        }
        size_t l = strlen(dir) + strlen(e->d_name) + 2;
        char *s = malloc(l);
        if (!s) break;
        snprintf(s, l, "%s/%s", dir, e->d_name);
        out->files[out->n++] = s;
    }
    closedir(d);
    out->path = strdup(dir);
    if (out->n == 0) {
        mlr_dir_free(out);
        return MLR_ENOFILES;
    }
    qsort(out->files, out->n, sizeof *out->files, name_cmp);
    return MLR_OK;
}

void mlr_dir_free(struct mlr_dir *d)
{
    for (unsigned i = 0; i < d->n; i++) free(d->files[i]);
    free(d->files);
    free(d->path);
    memset(d, 0, sizeof *d);
}
