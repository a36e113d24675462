/*
 * python.c — call sites of a Python program (mpi4py).
 *
 * In a Python program every MPI call is made by mpi4py's extension module,
 * so its return address says "MPI.cpython-311-x86_64-linux-gnu.so+0xe2756"
 * for every call.  What the user wants is the line of the Python program
 * that made the call.  When the program is a Python interpreter that loaded
 * mpi4py, a call whose return address lies in mpi4py's code takes instead
 * the Python frame that called it: the thread's current interpreter frame,
 * read from the thread state (no GIL needed to read it: the thread is in C,
 * its frames do not move), keyed by its code object and instruction.  The
 * first time a key is seen, its file and line come from the Python C API
 * with the GIL held (taken if the thread does not hold it).  A site of a
 * Python line is then an address outside any real mapping, in a module of
 * its own per source file (struct ml_module with file_offset
 * ML_MODULE_SOURCE: address - start is the line), so the readers resolve it
 * as they resolve any site (format/symbols.c).
 *
 * The fields of the thread state and frame are not part of Python's API:
 * their places are found at MPI_Init (which mpi4py calls with the GIL held,
 * at import), by looking for the code objects the API gives for the current
 * frame and the one before it, and everything here stays off where they are
 * not found, where chains of call sites are recorded (mpilens run -k), or
 * where the interpreter is not initialised.  Nothing but reads of the
 * interpreter's memory happens on a call whose key is known.
 */
#include "rt.h"
#include "rt_more.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uintptr_t ml_py_lo, ml_py_len;   /* mpi4py's code; len 0: off */

static struct {
    int (*is_init)(void);
    int (*gil_check)(void);
    void *(*this_ts)(void);
    int (*ensure)(void);
    void (*release)(int);
    void *(*get_frame)(void);
    void *(*frame_back)(void *);
    void *(*frame_code)(void *);
    int (*frame_line)(void *);
    void *(*getattr)(void *, const char *);
    const char *(*utf8)(void *);
    void (*decref)(void *);
    void (*err_clear)(void);
} py;

static int two_level;            /* thread state -> frame (Python 3.13) rather than -> cframe -> frame */
static size_t o_ts, o_cf, o_code, o_instr;

#define PY_BASE 0x4000000000000000ull   /* beyond any user address */
#define PY_FILES 64
static struct ml_module py_mods[PY_FILES];
static unsigned npy_mods;

#define PY_KEYS 4096
static struct pykey {
    uintptr_t code, instr, addr;
} keys[PY_KEYS];
static unsigned nkeys;
static pthread_mutex_t py_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- finding the fields ---------------------------------------------------- */

struct range {
    uintptr_t lo, hi;
};
static struct range *rd_ok;
static unsigned nrd_ok;

/* The readable mappings (for peek), and the executable ones of mpi4py's
 * module (MPI.*.so): *lo, *hi, hi 0 where there is none.  One read of
 * /proc/self/maps. */
static void maps_load(uintptr_t *lo, uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[4352];
    unsigned cap = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perm[8];
        int pos = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &a, &b, perm, &pos) < 3) continue;
        if (perm[2] == 'x' && pos && strstr(line + pos, "/mpi4py/MPI.")) {
            if (a < *lo) *lo = a;
            if (b > *hi) *hi = b;
        }
        if (perm[0] != 'r') continue;
        if (nrd_ok == cap) {
            unsigned c = cap ? cap * 2 : 256;
            struct range *r = realloc(rd_ok, c * sizeof *r);
            if (!r) break;
            rd_ok = r;
            cap = c;
        }
        rd_ok[nrd_ok++] = (struct range){a, b};
    }
    fclose(f);
}

/* *(p + off) as a pointer-sized word, 0 where that is not readable */
static uintptr_t peek(uintptr_t p, size_t off)
{
    uintptr_t a = p + off;
    if (!p || (a & 7)) return 0;
    for (unsigned i = 0; i < nrd_ok; i++)
        if (a >= rd_ok[i].lo && a + 8 <= rd_ok[i].hi) return *(const uintptr_t *)a;
    return 0;
}

/* Does field o of frame fr point into code object c's own memory (its
 * instructions: the frame's current one)? */
static int in_code(uintptr_t fr, size_t o, uintptr_t c)
{
    uintptr_t v = peek(fr, o);
    intptr_t n = (intptr_t)peek(c, 16);   /* ob_size: its code units */
    return v > c + 16 && n > 0 && n < (1 << 24) && v < c + 1024 + 2 * (uintptr_t)n;
}

/* With the GIL held and the mappings loaded: the places of the thread
 * state's frame, the frame's code object and its instruction, from the
 * current frame and the one before it.  1 when found, the same for both. */
static int find_fields(void)
{
    void *f = py.get_frame();
    if (!f) return 0;
    void *b = py.frame_back(f);
    void *c = py.frame_code(f);
    void *cb = b ? py.frame_code(b) : NULL;
    uintptr_t ts = (uintptr_t)py.this_ts(), code = (uintptr_t)c, codeb = (uintptr_t)cb;
    int ok = 0;
    if (ts && code && codeb && code != codeb) {
        for (int lv = 1; lv >= 0 && !ok; lv--)
            for (size_t a = 0; a < 512 && !ok; a += 8) {
                uintptr_t p = peek(ts, a);
                for (size_t m = 0; m < (lv ? 32u : 8u) && !ok; m += 8) {
                    uintptr_t fr = lv ? peek(p, m) : p;
                    if (!fr) continue;
                    for (size_t k = 0; k < 96 && !ok; k += 8) {
                        if (peek(fr, k) != code) continue;
                        /* the frame before: a field of fr whose code is codeb */
                        uintptr_t prev = 0;
                        for (size_t q = 0; q < 128 && !prev; q += 8)
                            if (q != k && peek(peek(fr, q), k) == codeb) prev = peek(fr, q);
                        if (!prev) continue;
                        for (size_t q = 0; q < 128 && !ok; q += 8)
                            if (q != k && in_code(fr, q, code) && in_code(prev, q, codeb)) {
                                two_level = !lv;
                                o_ts = a;
                                o_cf = m;
                                o_code = k;
                                o_instr = q;
                                ok = 1;
                            }
                    }
                }
            }
    }
    if (cb) py.decref(cb);
    if (b) py.decref(b);
    if (c) py.decref(c);
    return ok;
}

/* ---- at MPI_Init ----------------------------------------------------------------- */

#define SYM(f, name) (*(void **)&py.f = dlsym(RTLD_DEFAULT, name))

static void py_setup(int chains);

void ml_py_setup(int chains)
{
    pthread_mutex_lock(&py_lock);
    py_setup(chains);
    pthread_mutex_unlock(&py_lock);
}

static void py_setup(int chains)
{
    if (chains || ml_py_len) return;
    if (!SYM(is_init, "Py_IsInitialized") || !SYM(gil_check, "PyGILState_Check") ||
        !SYM(this_ts, "PyGILState_GetThisThreadState") || !SYM(ensure, "PyGILState_Ensure") ||
        !SYM(release, "PyGILState_Release") || !SYM(get_frame, "PyEval_GetFrame") ||
        !SYM(frame_back, "PyFrame_GetBack") || !SYM(frame_code, "PyFrame_GetCode") ||
        !SYM(frame_line, "PyFrame_GetLineNumber") || !SYM(getattr, "PyObject_GetAttrString") ||
        !SYM(utf8, "PyUnicode_AsUTF8") || !SYM(decref, "Py_DecRef") || !SYM(err_clear, "PyErr_Clear"))
        return;
    if (!py.is_init() || !py.gil_check()) return;
    /* mpi4py's code: its executable mappings (one module, MPI.*.so) */
    uintptr_t lo, hi;
    maps_load(&lo, &hi);
    int found = hi && find_fields();
    free(rd_ok);
    rd_ok = NULL;
    nrd_ok = 0;
    if (!found) return;
    ml_py_lo = lo;
    __atomic_store_n(&ml_py_len, hi - lo, __ATOMIC_RELEASE);
    /* mpi4py's calls so far (MPI_Init's) are in this thread's site cache */
    memset(ml_th.sites, 0, sizeof ml_th.sites);
}

/* ---- a call --------------------------------------------------------------------- */

/* The module of Python source file `file` (under py_lock): an index, or -1. */
static int file_module(const char *file)
{
    for (unsigned i = 0; i < npy_mods; i++)
        if (strncmp(py_mods[i].path, file, sizeof py_mods[i].path - 1) == 0) return (int)i;
    if (npy_mods == PY_FILES) return -1;
    struct ml_module *m = &py_mods[npy_mods];
    m->start = PY_BASE + ((uint64_t)npy_mods << 32);
    m->end = m->start + (1ull << 32);
    m->file_offset = ML_MODULE_SOURCE;
    snprintf(m->path, sizeof m->path, "%s", file);
    return (int)npy_mods++;
}

unsigned ml_py_modules(struct ml_module *out, unsigned room)
{
    unsigned n = __atomic_load_n(&npy_mods, __ATOMIC_ACQUIRE);
    if (n > room) n = room;
    memcpy(out, py_mods, n * sizeof *out);
    return n;
}

/* The entry of key (code, instr) in keys, or the empty one it would take;
 * NULL when neither is found (under py_lock). */
static struct pykey *key_slot(uintptr_t code, uintptr_t instr)
{
    unsigned h = (unsigned)(((code ^ instr * 31) * 0x9E3779B97F4A7C15ull) >> 52) & (PY_KEYS - 1);
    for (unsigned i = 0; i < PY_KEYS; i++, h = (h + 1) & (PY_KEYS - 1))
        if (!keys[h].code || (keys[h].code == code && keys[h].instr == instr)) return &keys[h];
    return NULL;
}

/* The first call of a key: its file and line, with the GIL.  0 where the
 * frame the API gives is not the one read (then the call keeps mpi4py's
 * address). */
static uintptr_t resolve(uintptr_t code, uintptr_t instr)
{
    int held = py.gil_check(), st = 0;
    if (!held) st = py.ensure();
    char file[sizeof py_mods[0].path] = "";
    int line = -1;
    void *f = py.get_frame();   /* (borrowed) */
    void *c = f ? py.frame_code(f) : NULL, *back = NULL;
    if (c && (uintptr_t)c == code) {
        /* the program's line, not the import machinery's (calls made
         * while mpi4py is imported): the first frame outside "<frozen ...>" */
        for (int depth = 0; f && c && depth < 64; depth++) {
            void *name = py.getattr(c, "co_filename");
            const char *s = name ? py.utf8(name) : NULL;
            if (!s) py.err_clear();
            int frozen = s && strncmp(s, "<frozen ", 8) == 0;
            if (s && (!frozen || !file[0])) {
                snprintf(file, sizeof file, "%s", s);
                line = py.frame_line(f);
            }
            if (name) py.decref(name);
            if (!frozen) break;
            void *nb = py.frame_back(f);
            py.decref(c);
            c = nb ? py.frame_code(nb) : NULL;
            if (back) py.decref(back);
            f = back = nb;
        }
    }
    if (c) py.decref(c);
    if (back) py.decref(back);
    if (!held) py.release(st);
    if (line < 0 || !file[0]) return 0;
    pthread_mutex_lock(&py_lock);
    uintptr_t addr = 0;
    struct pykey *k = key_slot(code, instr);
    if (k && k->code) {
        addr = k->addr;   /* (another thread took it meanwhile) */
    } else if (k && nkeys * 4 < PY_KEYS * 3) {   /* (full: the rest keep mpi4py's address) */
        int mi = file_module(file);
        if (mi >= 0) {
            k->code = code;
            k->instr = instr;
            k->addr = addr = py_mods[mi].start + (uint64_t)line;
            nkeys++;
        }
    }
    unsigned n = npy_mods;
    pthread_mutex_unlock(&py_lock);
    if (addr) ml_py_modules_changed(n);
    return addr;
}

uintptr_t ml_py_addr(struct ml_thread *th)
{
    /* not while the interpreter is finalised (mpi4py's MPI_Finalize at
     * exit runs after its thread states are gone) */
    if (!py.is_init()) return 0;
    uintptr_t ts = (uintptr_t)py.this_ts();
    if (!ts) return 0;
    uintptr_t fr = *(const uintptr_t *)(ts + o_ts);
    if (!two_level && fr) fr = *(const uintptr_t *)(fr + o_cf);
    if (!fr) return 0;
    uintptr_t code = *(const uintptr_t *)(fr + o_code), instr = *(const uintptr_t *)(fr + o_instr);
    unsigned h = (unsigned)((code >> 4) ^ instr) & (ML_PY_CACHE - 1);
    if (th->py[h].code == code && th->py[h].instr == instr && code) return th->py[h].addr;
    if (!code) return 0;
    /* a key seen by another thread */
    uintptr_t addr = 0;
    pthread_mutex_lock(&py_lock);
    struct pykey *k = key_slot(code, instr);
    if (k && k->code) addr = k->addr;
    pthread_mutex_unlock(&py_lock);
    if (!addr) addr = resolve(code, instr);
    if (!addr) return 0;
    th->py[h].code = code;
    th->py[h].instr = instr;
    th->py[h].addr = addr;
    return addr;
}
