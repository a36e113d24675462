/*
 * symbols.c — see symbols.h.
 */
#include "symbols.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct module {                /* one ELF file, reported at its link-time addresses */
    char *path;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    int elf_ok;                /* its ELF header was read (the file exists here) */
    int is_dyn;
    GElf_Phdr *ph;
    size_t nph;
    struct module *next;
};

struct cached {
    const struct module *m;
    uint64_t rel;
    char *text;
    struct cached *next;
};

#define CACHE_BUCKETS 4096
static struct module *modules;
static struct cached *cache[CACHE_BUCKETS];

static const Dwfl_Callbacks callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static struct module *module_get(const char *path)
{
    for (struct module *m = modules; m; m = m->next)
        if (strcmp(m->path, path) == 0) return m;
    struct module *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->path = strdup(path);
    m->next = modules;
    modules = m;
    if (path[0] != '/') return m;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return m;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    if (e && gelf_getehdr(e, &eh)) {
        m->elf_ok = 1;
        m->is_dyn = eh.e_type == ET_DYN;
        size_t n = 0;
        if (elf_getphdrnum(e, &n) == 0 && n < 4096) {
            m->ph = calloc(n ? n : 1, sizeof *m->ph);
            for (size_t i = 0; m->ph && i < n; i++)
                if (gelf_getphdr(e, (int)i, &m->ph[m->nph])) m->nph++;
        }
    }
    if (e) elf_end(e);
    close(fd);
    m->dwfl = dwfl_begin(&callbacks);
    if (m->dwfl) {
        dwfl_report_begin(m->dwfl);
        m->mod = dwfl_report_elf(m->dwfl, path, path, -1, 0, false);
        dwfl_report_end(m->dwfl, NULL, NULL);
    }
    return m;
}

/* Link-time address of a runtime address inside mapping mm of module m.
 * Where the module cannot be read here (the trace is read on another
 * machine, the program was moved or rebuilt), the offset in the module's file
 * from the module map (mapping start and file offset): for the text of a
 * position-independent program or library the same number as the link-time
 * address, never the process's absolute address. */
static int to_rel(const struct module *m, const struct ml_module *mm, uint64_t addr, uint64_t *rel)
{
    if (!m->elf_ok) {
        *rel = addr - mm->start + mm->file_offset;
        return 0;
    }
    if (!m->is_dyn) {
        *rel = addr;
        return 0;
    }
    for (size_t i = 0; i < m->nph; i++) {
        const GElf_Phdr *p = &m->ph[i];
        if (p->p_type != PT_LOAD) continue;
        uint64_t pg_off = p->p_offset & ~0xfffull;
        if (pg_off != mm->file_offset) continue;
        uint64_t bias = mm->start - (p->p_vaddr & ~0xfffull);
        *rel = addr - bias;
        return 0;
    }
    *rel = addr - (mm->start - mm->file_offset);
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A demangled name as one token, so that a site never holds a space (dump
 * and the tables split on spaces): a space beside punctuation goes
 * ("f(int, char) const" -> "f(int,char)const"), one between two words
 * becomes '_' ("unsigned long" -> "unsigned_long"). */
static void one_token(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p != ' ') {
            *o++ = *p;
            continue;
        }
        char a = o > s ? o[-1] : 0, b = p[1];
        int wa = a == '_' || (a >= '0' && a <= '9') || (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z');
        int wb = b == '_' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
        if (wa && wb) *o++ = '_';
    }
    *o = 0;
}

static char *describe(const struct module *m, uint64_t rel)
{
    char buf[512];
    /* the return address follows the call: look up the call instruction */
    uint64_t q = rel ? rel - 1 : rel;
    if (m->mod) {
        Dwfl_Line *l = dwfl_module_getsrc(m->mod, q);
        int line = 0;
        const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
        if (file && line > 0) {
            snprintf(buf, sizeof buf, "%s:%d", base_name(file), line);
            return strdup(buf);
        }
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(m->mod, q, &off, &sym, NULL, NULL, NULL);
        if (name) {
            char *d = sym_demangle(name);
            if (d) one_token(d);
            snprintf(buf, sizeof buf, "%s+0x%" PRIx64 "(%s)", d ? d : name, (uint64_t)off + 1, base_name(m->path));
            free(d);
            return strdup(buf);
        }
    }
    snprintf(buf, sizeof buf, "%s+0x%" PRIx64, base_name(m->path), rel);
    return strdup(buf);
}

const char *sym_addr(const struct mlr_file *f, uint64_t addr, char *buf, size_t n)
{
    const struct ml_module *mm = NULL;
    for (unsigned i = 0; i < mlr_nmodules(f); i++) {
        const struct ml_module *x = mlr_module(f, i);
        if (addr >= x->start && addr < x->end) {
            mm = x;
            break;
        }
    }
    if (!mm) {
        snprintf(buf, n, "0x%" PRIx64, addr);
        return buf;
    }
    return sym_module_addr(mm, addr, buf, n);
}

const char *sym_module_addr(const struct ml_module *mm, uint64_t addr, char *buf, size_t n)
{
    if (mm->file_offset == ML_MODULE_SOURCE) {   /* a Python source file: the site is a line */
        char path[sizeof mm->path + 1];
        memcpy(path, mm->path, sizeof mm->path);
        path[sizeof mm->path] = 0;
        snprintf(buf, n, "%s:%" PRIu64, base_name(path), addr - mm->start);
        return buf;
    }
    struct module *m = module_get(mm->path);
    if (!m) {
        snprintf(buf, n, "0x%" PRIx64, addr);
        return buf;
    }
    uint64_t rel = 0;
    to_rel(m, mm, addr, &rel);
    unsigned h = (unsigned)((rel * 0x9E3779B97F4A7C15ull) >> 52) ^ (unsigned)((uintptr_t)m >> 4);
    h &= CACHE_BUCKETS - 1;
    for (struct cached *c = cache[h]; c; c = c->next)
        if (c->m == m && c->rel == rel) {
            snprintf(buf, n, "%s", c->text);
            return buf;
        }
    struct cached *c = calloc(1, sizeof *c);
    char *t = describe(m, rel);
    if (c && t) {
        c->m = m;
        c->rel = rel;
        c->text = t;
        c->next = cache[h];
        cache[h] = c;
    }
    snprintf(buf, n, "%s", t ? t : "?");
    if (!c) free(t);
    return buf;
}

const char *sym_site(const struct mlr_file *f, uint32_t site, char *buf, size_t n)
{
    uint64_t a = mlr_site_addr(f, site);
    if (!a) {
        snprintf(buf, n, "?");
        return buf;
    }
    return sym_addr(f, a, buf, n);
}

const char *sym_stack(const struct mlr_file *f, uint32_t site, char *buf, size_t n)
{
    uint64_t a[ML_MAX_DEPTH];
    unsigned k = mlr_site_chain(f, site, a, ML_MAX_DEPTH);
    if (k == 0 || n == 0) return sym_site(f, site, buf, n);
    sym_addr(f, a[0], buf, n);
    size_t l = strlen(buf);
    char t[1024];
    for (unsigned i = 1; i < k; i++) {
        sym_addr(f, a[i], t, sizeof t);
        size_t tl = strlen(t);
        if (l + 3 + tl + 1 > n) {            /* whole frames only: the rest as " < .." */
            if (l + 5 < n) memcpy(buf + l, " < ..", 6);
            break;
        }
        memcpy(buf + l, " < ", 3);
        memcpy(buf + l + 3, t, tl + 1);
        l += 3 + tl;
    }
    return buf;
}

void sym_cleanup(void)
{
    for (unsigned i = 0; i < CACHE_BUCKETS; i++)
        while (cache[i]) {
            struct cached *c = cache[i];
            cache[i] = c->next;
            free(c->text);
            free(c);
        }
    while (modules) {
        struct module *m = modules;
        modules = m->next;
        if (m->dwfl) dwfl_end(m->dwfl);
        free(m->ph);
        free(m->path);
        free(m);
    }
}

/* ---- fitting a site into a column ------------------------------------------ */

/* "..", then the tail of s that fills w columns in all */
static const char *cut_left(const char *s, size_t w, char *b, size_t n)
{
    size_t l = strlen(s);
    if (l <= w) snprintf(b, n, "%s", s);
    else if (w < 3) snprintf(b, n, "%.*s", (int)w, s + l - w);
    else snprintf(b, n, "..%s", s + l - (w - 2));
    return b;
}

struct fn_parts {               /* "scope::name(params)+0x1a(module)" */
    char head[1024];           /* scope::name(params) */
    char off[64], mod[512];    /* "+0x1a", "(module)" */
    size_t hl, lastp;          /* length of head; its parameter list's '(' (hl if none) */
    size_t sep[64], nsep;      /* the scopes' "::" */
};

/* 0 if s is not a function+offset(module) site */
static int fn_split(const char *s, struct fn_parts *p)
{
    const char *plus = NULL;
    for (const char *q = s; (q = strstr(q, "+0x")); q++) plus = q;
    p->hl = plus ? (size_t)(plus - s) : 0;
    const char *mp = plus ? strchr(plus, '(') : NULL;
    /* "module+0x1a" (no function known) is not one */
    if (!plus || p->hl == 0 || (!memchr(s, '(', p->hl) && !mp) || p->hl >= sizeof p->head) return 0;
    memcpy(p->head, s, p->hl);
    p->head[p->hl] = 0;
    snprintf(p->off, sizeof p->off, "%.*s", (int)(mp ? (size_t)(mp - plus) : strlen(plus)), plus);
    snprintf(p->mod, sizeof p->mod, "%s", mp ? mp : "");
    /* the scopes: "::" outside <>, () and {} before the last top-level '(' */
    int depth = 0;
    p->nsep = 0;
    p->lastp = p->hl;
    for (size_t i = 0; i < p->hl; i++) {
        char c = p->head[i];
        if (c == '<' || c == '(' || c == '{' || c == '[') {
            if (c == '(' && depth == 0) p->lastp = i;
            depth++;
        } else if ((c == '>' || c == ')' || c == '}' || c == ']') && depth > 0) {
            depth--;
        } else if (c == ':' && p->head[i + 1] == ':' && depth == 0 && p->nsep < 64) {
            p->sep[p->nsep++] = i;
        }
    }
    while (p->nsep && p->sep[p->nsep - 1] > p->lastp) p->nsep--;   /* after the parameters: not a scope */
    return 1;
}

/* A call chain "inner < caller < ..." (sym_stack): its frames */
static unsigned chain_split(const char *s, const char *fr[ML_MAX_DEPTH + 1], size_t len[ML_MAX_DEPTH + 1])
{
    unsigned k = 0;
    for (const char *p = s; k < ML_MAX_DEPTH + 1;) {
        const char *q = strstr(p, " < ");
        fr[k] = p;
        len[k++] = q ? (size_t)(q - p) : strlen(p);
        if (!q) break;
        p = q + 3;
    }
    return k;
}

/* A chain fitted: the innermost frame (fitted alone when even it is too
 * wide), then its callers while they fit whole, " < .." for the rest. */
static const char *fit_chain(const char *s, size_t w, char *b, size_t n)
{
    const char *fr[ML_MAX_DEPTH + 1];
    size_t len[ML_MAX_DEPTH + 1];
    unsigned k = chain_split(s, fr, len);
    char first[1024], out[1700];
    snprintf(first, sizeof first, "%.*s", (int)len[0], fr[0]);
    size_t room = w > 5 ? w - 5 : 0;         /* the inner frame keeps room for " < .." */
    if (strlen(first) > room) {
        char t[1024];
        sym_fit(first, room, t, sizeof t);
        snprintf(out, sizeof out, "%s < ..", t);
        return snprintf(b, n, "%s", out), b;
    }
    size_t l = (size_t)snprintf(out, sizeof out, "%s", first);
    for (unsigned i = 1; i < k; i++) {
        int last = i == k - 1;
        if (l + 3 + len[i] + (last ? 0 : 5) > w || l + 3 + len[i] + 6 > sizeof out) {
            snprintf(out + l, sizeof out - l, " < ..");
            return snprintf(b, n, "%s", out), b;
        }
        l += (size_t)snprintf(out + l, sizeof out - l, " < %.*s", (int)len[i], fr[i]);
    }
    return snprintf(b, n, "%s", out), b;
}

size_t sym_fit_min(const char *s)
{
    if (strstr(s, " < ")) {                  /* a chain: at least its inner frame, whole */
        const char *fr[ML_MAX_DEPTH + 1];
        size_t len[ML_MAX_DEPTH + 1];
        chain_split(s, fr, len);
        char first[1024];
        snprintf(first, sizeof first, "%.*s", (int)len[0], fr[0]);
        return sym_fit_min(first) + 5;
    }
    struct fn_parts p;
    if (!fn_split(s, &p)) {
        const char *slash = strrchr(s, '/');
        return slash ? strlen(slash + 1) + 2 : strlen(s);
    }
    size_t from = p.nsep ? p.sep[p.nsep - 1] + 2 : 0;
    size_t name = (p.lastp < p.hl ? p.lastp : p.hl) - from + (p.lastp < p.hl ? 4 : 0);
    return (from ? 2 : 0) + name + strlen(p.off);
}

const char *sym_fit(const char *s, size_t w, char *b, size_t n)
{
    size_t l = strlen(s);
    if (l <= w) {
        snprintf(b, n, "%s", s);
        return b;
    }
    if (strstr(s, " < ")) return fit_chain(s, w, b, n);
    static struct fn_parts p;
    if (!fn_split(s, &p)) return cut_left(s, w, b, n);
    char t[1700];
    size_t from = 0;   /* where the name starts after the dropped scopes */
    for (size_t k = 0;; k++) {
        snprintf(t, sizeof t, "%s%s%s%s", from ? ".." : "", p.head + from, p.off, p.mod);
        if (strlen(t) <= w) return snprintf(b, n, "%s", t), b;
        if (k >= p.nsep) break;
        from = p.sep[k] + 2;
    }
    snprintf(t, sizeof t, "%s%s%s", from ? ".." : "", p.head + from, p.off);   /* without the module */
    if (strlen(t) <= w) return snprintf(b, n, "%s", t), b;
    if (p.lastp < p.hl && p.lastp >= from)   /* without the parameters */
        snprintf(t, sizeof t, "%s%.*s(..)%s", from ? ".." : "", (int)(p.lastp - from), p.head + from, p.off);
    return cut_left(t, w, b, n);
}
