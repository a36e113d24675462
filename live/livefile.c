/*
 * livefile.c — rank files opened for live reading (see live.h).
 *
 * format/reader.c reads a whole file, once: its header is a copy taken at
 * open, and opening scans every chunk.  The live view needs the opposite:
 * the header, the live slots and the tables re-read on every refresh,
 * nothing proportional to the trace.  So a live file maps only the part
 * before the chunks (header, tables, live slots: about 1 MiB of address
 * space, of which a refresh touches two or three pages), and reads the
 * chunks with pread, incrementally, only to find communicator definitions
 * when a slot names one it has not seen.
 *
 * Everything read is untrusted (the writer may be anything, or dead at any
 * instruction): offsets and sizes are checked against the file size at open,
 * and the mapping is never touched beyond it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "symbols.h"

/* ---- interned routine names and call sites (global) -------------------- */

struct names {               /* one distinct routine-name table */
    uint64_t hash;
    size_t len;
    unsigned n;
    const char **name;       /* into own copy */
    int *gid;
    char *copy;
    struct names *next;
};
static struct names *tables;

static char **gnames;        /* global routine name ids */
static unsigned ngnames, capgnames;

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

static int name_gid(const char *s)
{
    /* linear in distinct names (a few hundred), called once per table entry */
    for (unsigned i = 0; i < ngnames; i++)
        if (strcmp(gnames[i], s) == 0) return (int)i;
    if (ngnames == capgnames) {
        unsigned c = capgnames ? capgnames * 2 : 512;
        char **p = realloc(gnames, c * sizeof *p);
        if (!p) return -1;
        gnames = p;
        capgnames = c;
    }
    gnames[ngnames] = strdup(s);
    if (!gnames[ngnames]) return -1;
    return (int)ngnames++;
}

static struct names *names_get(const uint8_t *p, size_t len)
{
    uint64_t h = fnv(p, len, 0xcbf29ce484222325ull);
    for (struct names *t = tables; t; t = t->next)
        if (t->hash == h && t->len == len && memcmp(t->copy, p, len) == 0) return t;
    struct names *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->copy = malloc(len + 1);
    if (!t->copy) {
        free(t);
        return NULL;
    }
    memcpy(t->copy, p, len);
    t->copy[len] = 0;
    t->hash = h;
    t->len = len;
    uint32_t cnt = 0;
    if (len >= 4) memcpy(&cnt, t->copy, 4);
    if (cnt > 65536) cnt = 0;
    t->name = calloc(cnt ? cnt : 1, sizeof *t->name);
    t->gid = calloc(cnt ? cnt : 1, sizeof *t->gid);
    char *s = t->copy + 4, *end = t->copy + len;
    for (uint32_t i = 0; t->name && t->gid && i < cnt && s < end; i++) {
        char *z = memchr(s, 0, (size_t)(end - s));
        if (!z) break;
        for (char *q = s; q < z; q++)
            if ((unsigned char)*q < 32 || *q == 127) *q = '?';
        t->name[i] = s;
        t->gid[i] = name_gid(s);
        t->n = i + 1;
        s = z + 1;
    }
    t->next = tables;
    tables = t;
    return t;
}

struct gsite {               /* a code location, the same for every rank */
    uint64_t mod_hash, off;
    struct ml_module mm;     /* one mapping it was seen in, and the address there */
    uint64_t addr;
    char *text;
};
static struct gsite *gsites; /* index 0 unused */
static unsigned ngsites, capgsites;
static uint32_t *gsite_hash; /* open addressing over gsites indices */
static unsigned gsite_hcap;

static uint64_t gsite_key(uint64_t mh, uint64_t off)
{
    return (mh ^ (off * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;
}

static int gsite_rehash(unsigned cap)
{
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return -1;
    for (unsigned i = 1; i < ngsites; i++) {
        unsigned k = (unsigned)(gsite_key(gsites[i].mod_hash, gsites[i].off) & (cap - 1));
        while (h[k]) k = (k + 1) & (cap - 1);
        h[k] = i;
    }
    free(gsite_hash);
    gsite_hash = h;
    gsite_hcap = cap;
    return 0;
}

static uint32_t gsite_get(const struct ml_module *mm, uint64_t addr)
{
    uint64_t mh = fnv(mm->path, strlen(mm->path), 0xcbf29ce484222325ull);
    uint64_t off = addr - mm->start + mm->file_offset;
    if (!gsite_hcap && gsite_rehash(1024)) return 0;
    unsigned k = (unsigned)(gsite_key(mh, off) & (gsite_hcap - 1));
    while (gsite_hash[k]) {
        struct gsite *g = &gsites[gsite_hash[k]];
        if (g->mod_hash == mh && g->off == off) return gsite_hash[k];
        k = (k + 1) & (gsite_hcap - 1);
    }
    if (ngsites == 0) ngsites = 1;
    if (ngsites + 1 >= capgsites) {
        unsigned c = capgsites ? capgsites * 2 : 256;
        struct gsite *p = realloc(gsites, c * sizeof *p);
        if (!p) return 0;
        gsites = p;
        capgsites = c;
    }
    struct gsite *g = &gsites[ngsites];
    memset(g, 0, sizeof *g);
    g->mod_hash = mh;
    g->off = off;
    g->mm = *mm;
    g->addr = addr;
    gsite_hash[k] = ngsites++;
    if (ngsites * 2 > gsite_hcap) gsite_rehash(gsite_hcap * 2);
    return ngsites - 1;
}

const char *lf_site_text(uint32_t gid)
{
    if (gid == 0 || gid >= ngsites) return "?";
    struct gsite *g = &gsites[gid];
    if (!g->text) {
        char buf[600];
        sym_module_addr(&g->mm, g->addr, buf, sizeof buf);
        g->text = strdup(buf);
        if (!g->text) return "?";
    }
    return g->text;
}

/* ---- one file ------------------------------------------------------------ */

struct chunk_scan {
    uint32_t scanned;        /* bytes of records already walked */
};

struct lf {
    char *path;
    int fd;
    const uint8_t *base;     /* mapping of [0, maplen) */
    size_t maplen;
    struct ml_header h0;     /* copy at open: layout fields only */
    char host[65], impl[33];
    int mpich;
    struct names *names;
    const volatile uint64_t *sites;
    unsigned nsites;
    const volatile struct ml_module *modules;
    unsigned max_modules;
    const volatile struct ml_live *lives;
    unsigned max_threads;
    /* site id -> global site id */
    uint32_t *smap_key, *smap_val;
    unsigned smap_cap, smap_n;
    /* communicator definitions */
    struct lf_comm *comms;
    unsigned ncomms;
    struct chunk_scan *scan;
    unsigned nscan;
    uint8_t *buf;
    /* clock */
    double ns_per_tick;
    uint64_t a1_seen;
    /* lf_fail_site_gid, once the failure record is read (kind), and its answer */
    uint32_t fail_done, fail_gid;
    /* a rank from a node's state stream (remote.c): base points at rh */
    int remote;
    struct ml_header *rh;
    struct ml_live *rl;
    unsigned rl_cap;
    int rstate;              /* LF_REMOTE_* */
    int64_t clock_off;       /* this host's monotonic ns minus the agent's */
    struct dl_reqs *reqs;
};

static int in_map(const struct lf *f, uint64_t off, uint64_t n)
{
    return off <= f->maplen && n <= f->maplen - off;
}

static void cstr(char *dst, size_t n, const volatile char *src, size_t srcmax)
{
    size_t i = 0;
    for (; i < srcmax && i + 1 < n && src[i]; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c < 32 || c == 127) ? '?' : (char)c;
    }
    dst[i] = 0;
}

/* 0 = opened; MLR_* error otherwise (-EAGAIN-like: MLR_EMAGIC while the
 * writer has not finished the header yet); -5: the file may not be read
 * (EACCES, EPERM: another user's rank file), which waiting does not change. */
int lf_open(const char *path, struct lf **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == EACCES || errno == EPERM ? -5 : -1;
    struct stat st;
    struct ml_header h;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -4;
    }
    if ((size_t)st.st_size < sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
        /* short: cut, unless what there is does not begin the magic */
        char b[8];
        ssize_t k = pread(fd, b, sizeof b, 0);
        close(fd);
        return k > 0 && memcmp(b, ML_MAGIC, (size_t)k) != 0 ? -2 : -4;
    }
    if (memcmp(h.magic, ML_MAGIC, 8) != 0) {
        close(fd);
        return -2;
    }
    if (h.endian != 0x01020304 || h.version != ML_VERSION) {
        close(fd);
        return -3;
    }
    uint64_t lim = 64ull << 20;   /* the part before the chunks is about 1 MiB */
    if (h.chunks_off > lim || h.live_off > lim || h.sites_off > lim || h.modules_off > lim ||
        h.routines_off > lim || h.max_threads > 65536 || h.max_sites > (1u << 24) ||
        h.max_modules > 65536 || h.chunk_size < 4096 || h.chunk_size > (64u << 20) ||
        h.chunk_size % 8) {
        close(fd);
        return -3;
    }
    size_t maplen = (size_t)st.st_size < h.chunks_off ? (size_t)st.st_size : (size_t)h.chunks_off;
    if (maplen < sizeof h) maplen = sizeof h;
    void *m = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return -1;
    }
    struct lf *f = calloc(1, sizeof *f);
    if (!f) {
        munmap(m, maplen);
        close(fd);
        return -1;
    }
    f->path = strdup(path);
    f->fd = fd;
    f->base = m;
    f->maplen = maplen;
    f->h0 = h;
    cstr(f->host, sizeof f->host, h.host, sizeof h.host);
    cstr(f->impl, sizeof f->impl, h.mpi_impl, sizeof h.mpi_impl);
    f->mpich = strncmp(f->impl, "mpich", 5) == 0;
    if (h.modules_off > h.routines_off && in_map(f, h.routines_off, h.modules_off - h.routines_off))
        f->names = names_get(f->base + h.routines_off, (size_t)(h.modules_off - h.routines_off));
    uint64_t ns = h.max_sites;
    while (ns && !in_map(f, h.sites_off, ns * 8)) ns /= 2;
    f->sites = (const volatile uint64_t *)(f->base + h.sites_off);
    f->nsites = (unsigned)ns;
    uint64_t nm = h.max_modules;
    while (nm && !in_map(f, h.modules_off, nm * sizeof(struct ml_module))) nm /= 2;
    f->modules = (const volatile struct ml_module *)(f->base + h.modules_off);
    f->max_modules = (unsigned)nm;
    uint64_t nt = h.max_threads;
    while (nt && !in_map(f, h.live_off, nt * sizeof(struct ml_live))) nt--;
    f->lives = (const volatile struct ml_live *)(f->base + h.live_off);
    f->max_threads = (unsigned)nt;
    f->ns_per_tick = 1.0;
    *out = f;
    return 0;
}

void lf_close(struct lf *f)
{
    if (!f) return;
    if (f->remote) {
        free(f->rh);
        free(f->rl);
        lf_remote_set_reqs(f, NULL);
    } else {
        munmap((void *)f->base, f->maplen);
        close(f->fd);
    }
    for (unsigned i = 0; i < f->ncomms; i++) free(f->comms[i].members);
    free(f->comms);
    free(f->scan);
    free(f->buf);
    free(f->smap_key);
    free(f->smap_val);
    free(f->path);
    free(f);
}

const char *lf_path(const struct lf *f) { return f->path; }
const volatile struct ml_header *lf_hdr(const struct lf *f) { return (const volatile struct ml_header *)f->base; }
const char *lf_host(const struct lf *f) { return f->host; }
const char *lf_impl(const struct lf *f) { return f->impl; }
int lf_any_source(const struct lf *f) { return f->mpich ? -2 : -1; }
int lf_proc_null(const struct lf *f) { return f->mpich ? -1 : -2; }

int lf_rank(const struct lf *f)
{
    return lf_hdr(f)->rank;
}

unsigned lf_nthreads(const struct lf *f)
{
    unsigned n = lf_hdr(f)->nthreads;
    if (f->remote) return n > f->rl_cap ? f->rl_cap : n;
    return n > f->max_threads ? f->max_threads : n;
}

int lf_live(const struct lf *f, unsigned i, struct ml_live *out)
{
    if (f->remote) {
        if (i >= f->rl_cap) return -1;
        *out = f->rl[i];
        return 0;
    }
    if (i >= f->max_threads) return -1;
    const volatile struct ml_live *l = &f->lives[i];
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s1 = l->seq;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        out->seq = s1;
        out->routine = l->routine;
        out->work = l->work;
        out->used = l->used;
        out->site = l->site;
        out->peer = l->peer;
        out->tag = l->tag;
        out->comm = l->comm;
        out->t_start = l->t_start;
        out->aux = l->aux;
        out->tid = l->tid;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint32_t s2 = l->seq;
        if (s1 == s2 && !(s1 & 1)) {
            /* the end stamps are written outside the sequence lock, after it */
            out->t_end = __atomic_load_n(&((const struct ml_live *)l)->t_end, __ATOMIC_ACQUIRE);
            out->t_idle = __atomic_load_n(&((const struct ml_live *)l)->t_idle, __ATOMIC_ACQUIRE);
            return 0;
        }
    }
    return -1;
}

static void clock_update(struct lf *f)
{
    const volatile struct ml_header *h = lf_hdr(f);
    if (h->clock_kind != 1) {
        f->ns_per_tick = 1.0;
        return;
    }
    uint64_t t0 = h->anchor0_ticks, t1 = h->anchor1_ticks;
    int64_t n0 = h->anchor0_ns, n1 = h->anchor1_ns;
    if (t1 == f->a1_seen) return;
    if (t1 > t0 && n1 > n0) {
        double r = (double)(n1 - n0) / (double)(t1 - t0);
        if (r > 0.001 && r < 1000) {
            f->ns_per_tick = r;
            f->a1_seen = t1;
        }
    }
}

int64_t lf_ns(struct lf *f, uint64_t ticks)
{
    const volatile struct ml_header *h = lf_hdr(f);
    if (h->clock_kind != 1) return (int64_t)ticks + f->clock_off;
    clock_update(f);
    return h->anchor0_ns + (int64_t)((double)(int64_t)(ticks - h->anchor0_ticks) * f->ns_per_tick) + f->clock_off;
}

uint64_t lf_ticks(struct lf *f, int64_t ns)
{
    const volatile struct ml_header *h = lf_hdr(f);
    ns -= f->clock_off;
    if (h->clock_kind != 1) return (uint64_t)ns;
    clock_update(f);
    return h->anchor0_ticks + (uint64_t)(int64_t)((double)(ns - h->anchor0_ns) / f->ns_per_tick);
}

const char *lf_routine(const struct lf *f, uint16_t routine)
{
    routine &= (uint16_t)~ML_ROUTINE_FORTRAN;
    if (f->names && routine < f->names->n && f->names->name[routine]) return f->names->name[routine];
    return "MPI_(unknown)";
}

int lf_routine_gid(const struct lf *f, uint16_t routine)
{
    routine &= (uint16_t)~ML_ROUTINE_FORTRAN;
    if (f->names && routine < f->names->n) return f->names->gid[routine];
    return -1;
}

static int smap_put(struct lf *f, uint32_t site, uint32_t gid)
{
    if ((f->smap_n + 1) * 2 > f->smap_cap) {
        unsigned cap = f->smap_cap ? f->smap_cap * 2 : 64;
        uint32_t *k = calloc(cap, 4), *v = calloc(cap, 4);
        if (!k || !v) {
            free(k);
            free(v);
            return -1;
        }
        for (unsigned i = 0; i < f->smap_cap; i++) {
            if (!f->smap_key[i]) continue;
            unsigned j = (f->smap_key[i] * 2654435761u) & (cap - 1);
            while (k[j]) j = (j + 1) & (cap - 1);
            k[j] = f->smap_key[i];
            v[j] = f->smap_val[i];
        }
        free(f->smap_key);
        free(f->smap_val);
        f->smap_key = k;
        f->smap_val = v;
        f->smap_cap = cap;
    }
    unsigned j = (site * 2654435761u) & (f->smap_cap - 1);
    while (f->smap_key[j] && f->smap_key[j] != site) j = (j + 1) & (f->smap_cap - 1);
    if (!f->smap_key[j]) f->smap_n++;
    f->smap_key[j] = site;
    f->smap_val[j] = gid;
    return 0;
}

uint32_t lf_site_gid(struct lf *f, uint32_t site)
{
    if (f->remote) return site < ngsites ? site : 0;   /* remote.c stores global ids */
    if (site == 0 || site > f->nsites) return 0;
    if (f->smap_cap) {
        unsigned j = (site * 2654435761u) & (f->smap_cap - 1);
        while (f->smap_key[j]) {
            if (f->smap_key[j] == site) return f->smap_val[j];
            j = (j + 1) & (f->smap_cap - 1);
        }
    }
    uint64_t addr = f->sites[site - 1];
    if (!addr) return 0;                    /* not published yet: ask again later */
    unsigned nm = lf_hdr(f)->nmodules;
    if (nm > f->max_modules) nm = f->max_modules;
    uint32_t gid = 0;
    for (unsigned i = 0; i < nm; i++) {
        struct ml_module mm;
        mm.start = f->modules[i].start;
        mm.end = f->modules[i].end;
        if (addr < mm.start || addr >= mm.end) continue;
        mm.file_offset = f->modules[i].file_offset;
        for (size_t k = 0; k < sizeof mm.path; k++) mm.path[k] = f->modules[i].path[k];
        mm.path[sizeof mm.path - 1] = 0;
        gid = gsite_get(&mm, addr);
        break;
    }
    if (!gid) {                             /* outside every known mapping */
        struct ml_module mm = {0, UINT64_MAX, 0, "?"};
        snprintf(mm.path, sizeof mm.path, "[unmapped %s]", f->path);
        gid = gsite_get(&mm, addr);
    }
    if (gid) smap_put(f, site, gid);
    return gid;
}

/* The module of a rank's address space that holds addr (copied), or -1. */
static int module_at(struct lf *f, uint64_t addr, struct ml_module *mm)
{
    unsigned nm = lf_hdr(f)->nmodules;
    if (nm > f->max_modules) nm = f->max_modules;
    for (unsigned i = 0; i < nm; i++) {
        mm->start = f->modules[i].start;
        mm->end = f->modules[i].end;
        if (addr < mm->start || addr >= mm->end) continue;
        mm->file_offset = f->modules[i].file_offset;
        for (size_t k = 0; k < sizeof mm->path; k++) mm->path[k] = f->modules[i].path[k];
        mm->path[sizeof mm->path - 1] = 0;
        return 0;
    }
    return -1;
}

/* "file.c:42" (line information), not "func+0x1a(lib.so)" or "0x..." */
static int site_has_line(const char *s)
{
    const char *c = strrchr(s, ':');
    if (!c || !c[1] || strstr(s, "+0x") || strchr(s, '(')) return 0;
    for (const char *p = c + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

uint32_t lf_fail_site_gid(struct lf *f)
{
    if (f->remote) return 0;
    const volatile struct ml_header *h = lf_hdr(f);
    uint32_t kind = __atomic_load_n(&h->failure.kind, __ATOMIC_ACQUIRE);
    if (kind != ML_FAIL_SIGNAL && kind != ML_FAIL_EXIT) return 0;
    if (f->fail_done == kind) return f->fail_gid;     /* the record is final once read */
    uint32_t flags = h->failure.flags, gid = 0;
    int own = kind == ML_FAIL_SIGNAL ? !(flags & ML_FAILF_SENDER) || (int64_t)h->failure.addr == h->pid
                                     : !(flags & (ML_FAILF_MAIN | ML_FAILF_NOSTATUS));
    unsigned nf = h->failure.nframes > 32 ? 32 : h->failure.nframes;
    /* as the report's diagnosis (analysis/diag.c where_frame): the
     * innermost frame in the program's own code with file:line, else in
     * its code at all, else with file:line anywhere; never the runtime */
    static const char *sys[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/", 0};
    for (int pass = 0; own && h->failure.routine == 0xffff && pass < 3 && !gid; pass++)
        for (unsigned i = 0; i < nf && !gid; i++) {
            uint64_t a = h->failure.frames[i];
            struct ml_module mm;
            int in = a && module_at(f, a, &mm) == 0;
            if (!a || (in && strstr(mm.path, "/libmpilens-"))) continue;
            int system = 0;
            for (int d = 0; in && sys[d]; d++) system |= !strncmp(mm.path, sys[d], strlen(sys[d]));
            if ((pass < 2 && system) || (pass < 2 && !in)) continue;
            if (!in) continue;        /* outside every mapping: no text worth a column */
            uint32_t g = gsite_get(&mm, a);
            if (g && (pass == 1 || site_has_line(lf_site_text(g)))) gid = g;
        }
    f->fail_done = kind;
    f->fail_gid = gid;
    return gid;
}

/* ---- communicator definitions, read from the chunks incrementally ------ */

/* MPI_Comm_set_name (ML_REC_COMM_NAME): the name of definition index */
static void add_comm_name(struct lf *f, const uint8_t *p, uint32_t len)
{
    if (len < sizeof(struct ml_rec) + sizeof(struct ml_comm_name)) return;
    struct ml_comm_name d;
    memcpy(&d, p + sizeof(struct ml_rec), sizeof d);
    if (d.index >= ML_COMM_NONE) return;
    if (d.index >= f->ncomms) {
        unsigned n = d.index + 1;
        struct lf_comm *c = realloc(f->comms, n * sizeof *c);
        if (!c) return;
        memset(c + f->ncomms, 0, (n - f->ncomms) * sizeof *c);
        f->comms = c;
        f->ncomms = n;
    }
    size_t n = strnlen(d.name, sizeof d.name);
    memcpy(f->comms[d.index].name, d.name, n);
    f->comms[d.index].name[n] = 0;
}

static void add_comm(struct lf *f, const uint8_t *p, uint32_t len)
{
    if (len < sizeof(struct ml_rec) + sizeof(struct ml_comm_def)) return;
    struct ml_comm_def d;
    memcpy(&d, p + sizeof(struct ml_rec), sizeof d);
    if (d.index >= ML_COMM_NONE) return;
    uint64_t nm = (d.flags & 2) ? 0 : (uint64_t)d.size + d.remote_size;
    if (sizeof(struct ml_rec) + sizeof d + nm * 4 > len) return;
    if (d.index >= f->ncomms) {
        unsigned n = d.index + 1;
        struct lf_comm *c = realloc(f->comms, n * sizeof *c);
        if (!c) return;
        memset(c + f->ncomms, 0, (n - f->ncomms) * sizeof *c);
        f->comms = c;
        f->ncomms = n;
    }
    struct lf_comm *c = &f->comms[d.index];
    free(c->members);
    c->members = NULL;
    if (nm) {
        c->members = malloc(nm * 4);
        if (!c->members) return;
        memcpy(c->members, p + sizeof(struct ml_rec) + sizeof d, nm * 4);
    }
    c->size = d.size;
    c->remote_size = d.remote_size;
    c->flags = d.flags;
    c->gid = d.global_id;
    /* The runtime names an intra-communicator by its parent and how many the
     * parent made (ml_comm_created): every group of one MPI_Comm_split gets
     * the same id.  Its members tell the groups apart (as the analysis's key
     * does), so the deadlock graph never mixes their members or instances. */
    if (!(d.flags & 3) && c->members) {
        uint64_t h = d.global_id ^ 0x6d656d62657273ull;
        for (uint64_t i = 0; i < nm; i++) {
            h ^= (uint32_t)c->members[i];
            h *= 0x100000001b3ull;
            h ^= h >> 29;
        }
        c->gid = h ? h : 1;
    }
    c->valid = 1;
}

static void scan_defs(struct lf *f)
{
    const volatile struct ml_header *h = lf_hdr(f);
    uint32_t nc = h->nchunks;
    uint32_t cs = f->h0.chunk_size;
    struct stat st;
    if (fstat(f->fd, &st) != 0) return;
    if (nc > (1u << 24)) return;
    if (nc > f->nscan) {
        struct chunk_scan *s = realloc(f->scan, nc * sizeof *s);
        if (!s) return;
        memset(s + f->nscan, 0, (nc - f->nscan) * sizeof *s);
        f->scan = s;
        f->nscan = nc;
    }
    if (!f->buf && !(f->buf = malloc(cs))) return;
    for (uint32_t i = 0; i < nc; i++) {
        uint64_t off = f->h0.chunks_off + (uint64_t)i * cs;
        struct ml_chunk ch;
        if (off + sizeof ch > (uint64_t)st.st_size) break;
        if (pread(f->fd, &ch, sizeof ch, (off_t)off) != (ssize_t)sizeof ch) break;
        if (ch.magic != ML_CHUNK_MAGIC) continue;
        uint64_t committed = ch.committed;
        if (committed > cs - sizeof ch) committed = cs - sizeof ch;
        if (off + sizeof ch + committed > (uint64_t)st.st_size) committed = (uint64_t)st.st_size - off - sizeof ch;
        uint32_t from = f->scan[i].scanned;
        if (committed <= from) continue;
        uint32_t want = (uint32_t)committed - from;
        ssize_t got = pread(f->fd, f->buf, want, (off_t)(off + sizeof ch + from));
        if (got <= 0) continue;
        uint32_t pos = 0;
        while (pos + sizeof(struct ml_rec) <= (uint32_t)got) {
            struct ml_rec r;
            memcpy(&r, f->buf + pos, sizeof r);
            uint32_t len = r.words ? (uint32_t)r.words * 8 : r.dur;
            if (len < sizeof r || len % 8 || len > (uint32_t)got - pos || r.words == 1) {
                pos = (uint32_t)got;         /* corrupt: stop reading this chunk */
                f->scan[i].scanned = cs;
                break;
            }
            if (r.type == ML_REC_COMM) add_comm(f, f->buf + pos, len);
            else if (r.type == ML_REC_COMM_NAME) add_comm_name(f, f->buf + pos, len);
            pos += len;
        }
        if (f->scan[i].scanned != cs) f->scan[i].scanned = from + pos;
    }
}

const struct lf_comm *lf_comm(struct lf *f, uint32_t index)
{
    if (index >= ML_COMM_NONE) return NULL;
    if ((index >= f->ncomms || !f->comms[index].valid) && !f->remote) scan_defs(f);
    if (index >= f->ncomms || !f->comms[index].valid) return NULL;
    return &f->comms[index];
}

int lf_world(struct lf *f, uint32_t index, int r)
{
    const struct lf_comm *c = lf_comm(f, index);
    if (!c || r < 0) return -1;
    if (c->flags & 2) return (uint32_t)r < c->size ? r : -1;
    if (!c->members) return -1;
    if (c->flags & 1) {
        if ((uint32_t)r >= c->remote_size) return -1;
        return c->members[c->size + (uint32_t)r];
    }
    if ((uint32_t)r >= c->size) return -1;
    return c->members[r];
}

void lf_global_cleanup(void)
{
    while (tables) {
        struct names *t = tables;
        tables = t->next;
        free(t->name);
        free(t->gid);
        free(t->copy);
        free(t);
    }
    for (unsigned i = 0; i < ngnames; i++) free(gnames[i]);
    free(gnames);
    gnames = NULL;
    ngnames = capgnames = 0;
    for (unsigned i = 1; i < ngsites; i++) free(gsites[i].text);
    free(gsites);
    gsites = NULL;
    ngsites = capgsites = 0;
    free(gsite_hash);
    gsite_hash = NULL;
    gsite_hcap = 0;
}

/* ---- remote ranks (remote.c) --------------------------------------------- */

int lf_site_key(uint32_t gid, uint64_t *mod_hash, uint64_t *off)
{
    if (gid == 0 || gid >= ngsites) return -1;
    *mod_hash = gsites[gid].mod_hash;
    *off = gsites[gid].off;
    return 0;
}

uint32_t lf_site_remote(uint64_t mh, uint64_t off, const char *text)
{
    if (!gsite_hcap && gsite_rehash(1024)) return 0;
    unsigned k = (unsigned)(gsite_key(mh, off) & (gsite_hcap - 1));
    while (gsite_hash[k]) {
        struct gsite *g = &gsites[gsite_hash[k]];
        if (g->mod_hash == mh && g->off == off) {
            if (!g->text && text) g->text = strdup(text);
            return gsite_hash[k];
        }
        k = (k + 1) & (gsite_hcap - 1);
    }
    if (ngsites == 0) ngsites = 1;
    if (ngsites + 1 >= capgsites) {
        unsigned c = capgsites ? capgsites * 2 : 256;
        struct gsite *p = realloc(gsites, c * sizeof *p);
        if (!p) return 0;
        gsites = p;
        capgsites = c;
    }
    struct gsite *g = &gsites[ngsites];
    memset(g, 0, sizeof *g);
    g->mod_hash = mh;
    g->off = off;
    snprintf(g->mm.path, sizeof g->mm.path, "?");
    g->text = strdup(text && *text ? text : "?");
    gsite_hash[k] = ngsites++;
    if (ngsites * 2 > gsite_hcap) gsite_rehash(gsite_hcap * 2);
    return ngsites - 1;
}

struct lf *lf_open_remote(const char *label)
{
    struct lf *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->rh = calloc(1, sizeof *f->rh);
    f->path = strdup(label);
    if (!f->rh || !f->path) {
        free(f->rh);
        free(f->path);
        free(f);
        return NULL;
    }
    f->remote = 1;
    f->fd = -1;
    f->base = (const uint8_t *)f->rh;
    f->maplen = sizeof *f->rh;
    f->rh->rank = -1;
    f->rh->size = -1;
    f->rh->clock_kind = 2;
    f->ns_per_tick = 1.0;
    return f;
}

int lf_is_remote(const struct lf *f) { return f->remote; }

const void *lf_names_table(const struct lf *f, size_t *len)
{
    *len = f->names ? f->names->len : 0;
    return f->names ? f->names->copy : NULL;
}
struct ml_header *lf_remote_hdr(struct lf *f) { return f->rh; }

struct ml_live *lf_remote_slot(struct lf *f, unsigned i)
{
    if (!f->remote || i >= ML_MAX_THREADS) return NULL;
    if (i >= f->rl_cap) {
        unsigned c = f->rl_cap ? f->rl_cap : 4;
        while (c <= i) c *= 2;
        if (c > ML_MAX_THREADS) c = ML_MAX_THREADS;
        struct ml_live *p = realloc(f->rl, c * sizeof *p);
        if (!p) return NULL;
        memset(p + f->rl_cap, 0, (c - f->rl_cap) * sizeof *p);
        f->rl = p;
        f->rl_cap = c;
    }
    return &f->rl[i];
}

void lf_remote_info(struct lf *f, const char *host, const char *impl)
{
    cstr(f->host, sizeof f->host, host, strlen(host));
    cstr(f->impl, sizeof f->impl, impl, strlen(impl));
    f->mpich = strncmp(f->impl, "mpich", 5) == 0;
    snprintf(f->rh->host, sizeof f->rh->host, "%s", f->host);
    snprintf(f->rh->mpi_impl, sizeof f->rh->mpi_impl, "%s", f->impl);
}

void lf_remote_names(struct lf *f, const uint8_t *table, size_t len)
{
    f->names = names_get(table, len);
}

void lf_remote_comm(struct lf *f, uint32_t index, uint32_t size, uint32_t rsize, uint32_t flags, uint64_t gid,
                    const int32_t *members, unsigned nmembers)
{
    if (index >= ML_COMM_NONE) return;
    if (!(flags & 2) && nmembers != (uint64_t)size + rsize) return;
    if (index >= f->ncomms) {
        unsigned n = index + 1;
        struct lf_comm *c = realloc(f->comms, n * sizeof *c);
        if (!c) return;
        memset(c + f->ncomms, 0, (n - f->ncomms) * sizeof *c);
        f->comms = c;
        f->ncomms = n;
    }
    struct lf_comm *c = &f->comms[index];
    free(c->members);
    c->members = NULL;
    c->valid = 0;
    if (!(flags & 2) && nmembers) {
        c->members = malloc(nmembers * sizeof *c->members);
        if (!c->members) return;
        memcpy(c->members, members, nmembers * sizeof *c->members);
    }
    c->size = size;
    c->remote_size = rsize;
    c->flags = flags;
    c->gid = gid;
    c->valid = 1;
}

void lf_remote_clock(struct lf *f, int64_t off) { f->clock_off = off; }
void lf_remote_set_state(struct lf *f, int state) { f->rstate = state; }
int lf_remote_state(const struct lf *f) { return f->remote ? f->rstate : LF_REMOTE_LIVE; }
struct dl_reqs *lf_remote_reqs(struct lf *f) { return f->reqs; }

void lf_remote_set_reqs(struct lf *f, struct dl_reqs *q)
{
    if (f->reqs) {
        dl_reqs_free(f->reqs);
        free(f->reqs);
    }
    f->reqs = q;
}

/* ---- routine classes ----------------------------------------------------- */

int routine_class(const char *n)
{
    if (!strcmp(n, ML_JOIN_NAME)) return RC_JOIN;
    if (strncmp(n, "MPI_", 4) != 0) return RC_OTHER;
    const char *s = n + 4;
    size_t l = strlen(s);
    char b[64];
    if (l >= sizeof b) return RC_OTHER;
    memcpy(b, s, l + 1);
    if (l > 2 && !strcmp(b + l - 2, "_c")) b[l - 2] = 0;      /* large-count variants */
    static const struct { const char *n; int c; } exact[] = {
        {"Wait", RC_WAIT}, {"Waitall", RC_WAITALL}, {"Waitany", RC_WAITANY},
        {"Waitsome", RC_WAITSOME}, {"Test", RC_TEST}, {"Testall", RC_TESTALL},
        {"Testany", RC_TESTANY}, {"Testsome", RC_TESTSOME}, {"Iprobe", RC_IPROBE},
        {"Improbe", RC_IPROBE}, {"Request_get_status", RC_REQ_STATUS},
        {"Probe", RC_PROBE}, {"Mprobe", RC_PROBE}, {"Recv", RC_RECV}, {"Mrecv", RC_OTHER},
        {"Send", RC_SEND}, {"Ssend", RC_SEND}, {"Bsend", RC_SEND}, {"Rsend", RC_SEND},
        {"Sendrecv", RC_SENDRECV}, {"Sendrecv_replace", RC_SENDRECV},
        {"Isend", RC_ISTART}, {"Issend", RC_ISTART}, {"Ibsend", RC_ISTART},
        {"Irsend", RC_ISTART}, {"Irecv", RC_ISTART}, {"Imrecv", RC_ISTART},
        {"Isendrecv", RC_ISTART}, {"Isendrecv_replace", RC_ISTART},
        {"Finalize", RC_FINALIZE}, {"Init", RC_INIT}, {"Init_thread", RC_INIT},
        {"Put", RC_ONESIDED}, {"Get", RC_ONESIDED}, {"Accumulate", RC_ONESIDED},
        {"Get_accumulate", RC_ONESIDED}, {"Fetch_and_op", RC_ONESIDED},
        {"Compare_and_swap", RC_ONESIDED}, {"Rput", RC_ONESIDED}, {"Rget", RC_ONESIDED},
        {"Raccumulate", RC_ONESIDED}, {"Rget_accumulate", RC_ONESIDED},
        {"Comm_dup", RC_COMM_COLL}, {"Comm_dup_with_info", RC_COMM_COLL},
        {"Comm_split", RC_COMM_COLL}, {"Comm_split_type", RC_COMM_COLL},
        {"Comm_create", RC_COMM_COLL}, {"Intercomm_merge", RC_COMM_COLL},
        {"Cart_create", RC_COMM_COLL}, {"Cart_sub", RC_COMM_COLL},
        {"Graph_create", RC_COMM_COLL}, {"Dist_graph_create", RC_COMM_COLL},
        {"Dist_graph_create_adjacent", RC_COMM_COLL}, {"Win_create", RC_COMM_COLL},
        {"Win_allocate", RC_COMM_COLL}, {"Win_allocate_shared", RC_COMM_COLL},
        {"Win_create_dynamic", RC_COMM_COLL}, {"File_open", RC_COMM_COLL},
        {"Intercomm_create", RC_COMM_COLL}, {"Comm_accept", RC_COMM_COLL}, {"Comm_connect", RC_COMM_COLL},
        {"Comm_spawn", RC_COMM_COLL}, {"Comm_spawn_multiple", RC_COMM_COLL},
        /* collectives on a window or file: the runtime publishes the
         * communicator it was created on (rt.c ml_obj_comm) */
        {"Win_fence", RC_COMM_COLL}, {"Win_free", RC_COMM_COLL}, {"Win_set_info", RC_COMM_COLL},
        {"File_close", RC_COMM_COLL}, {"File_set_size", RC_COMM_COLL},
        {"File_preallocate", RC_COMM_COLL}, {"File_set_view", RC_COMM_COLL},
        {"File_set_info", RC_COMM_COLL}, {"File_set_atomicity", RC_COMM_COLL},
        {"File_sync", RC_COMM_COLL}, {"File_seek_shared", RC_COMM_COLL},
    };
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (!strcmp(b, exact[i].n)) return exact[i].c;
    /* File_read_all, File_write_at_all_begin, File_read_ordered_end, ... */
    if ((!strncmp(b, "File_read", 9) || !strncmp(b, "File_write", 10)) &&
        (strstr(b, "_all") || strstr(b, "_ordered")))
        return RC_COMM_COLL;
    static const char *coll[] = {
        "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
        "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce",
        "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan",
    };
    for (size_t i = 0; i < sizeof coll / sizeof *coll; i++) {
        if (!strcmp(b, coll[i])) return RC_COLL;
        if (b[0] == 'I' && !strcasecmp(b + 1, coll[i])) return RC_ISTART;   /* Ibarrier */
    }
    if (!strncmp(b, "Neighbor_", 9)) return RC_COLL;
    if (!strncmp(b, "Ineighbor_", 10)) return RC_ISTART;
    static const char *local[] = {
        "Wtime", "Wtick", "Comm_rank", "Comm_size", "Comm_remote_size", "Comm_test_inter",
        "Get_count", "Get_elements", "Get_elements_x", "Initialized", "Finalized",
        "Query_thread", "Is_thread_main", "Get_version", "Get_library_version",
        "Get_processor_name", "Error_string", "Error_class", "Get_address", "Aint_add",
        "Aint_diff", "Type_size", "Type_size_x", "Type_get_extent", "Type_get_extent_x",
        "Type_get_true_extent", "Type_get_true_extent_x", "Comm_get_attr", "Comm_get_name",
        "Type_get_name", "Comm_group",
    };
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if (!strcmp(b, local[i])) return RC_LOCAL;
    if (!strncmp(b, "Group_", 6)) return RC_LOCAL;
    return RC_OTHER;
}

int rclass_rooted(const char *n)
{
    static const char *r[] = {"MPI_Bcast", "MPI_Reduce", "MPI_Gather", "MPI_Gatherv",
                              "MPI_Scatter", "MPI_Scatterv"};
    for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
        size_t l = strlen(r[i]);
        if (!strncmp(n, r[i], l) && (!n[l] || !strcmp(n + l, "_c"))) return 1;
    }
    return 0;
}
