/*
 * semutil.h — shared by the semantics test programs (tests/programs/sem_*.c).
 *
 * Every rank writes what it observes into its own text with out(); at the end
 * finish() gathers the texts to rank 0, which prints them in rank order, so the
 * output of a program is deterministic and can be compared byte for byte
 * between a plain run and a run under the runtime.  Nothing printed may depend
 * on timing, addresses or pids.
 */
#ifndef SEMUTIL_H
#define SEMUTIL_H

#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED */
#pragma GCC diagnostic ignored "-Wstringop-overflow" /* MPI_STATUSES_IGNORE */

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *su_text;
static size_t su_len, su_cap;
static int me = -1, np = -1;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = sizeof line - 2;
    line[n++] = '\n';
    if (su_len + n + 1 > su_cap) {
        su_cap = (su_len + n + 1) * 2 + 4096;
        su_text = realloc(su_text, su_cap);
        if (!su_text) abort();
    }
    memcpy(su_text + su_len, line, n);
    su_len += n;
    su_text[su_len] = 0;
}

/* Name of the error class of an error code (MPI_SUCCESS for 0). */
static const char *errname(int code)
{
    static char bufs[8][48];
    static int next;
    if (code == MPI_SUCCESS) return "MPI_SUCCESS";
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return "not-an-error-code";
    switch (cls) {
#define X(c) case c: return #c;
    X(MPI_ERR_BUFFER) X(MPI_ERR_COUNT) X(MPI_ERR_TYPE) X(MPI_ERR_TAG) X(MPI_ERR_COMM)
    X(MPI_ERR_RANK) X(MPI_ERR_REQUEST) X(MPI_ERR_ROOT) X(MPI_ERR_GROUP) X(MPI_ERR_OP)
    X(MPI_ERR_TOPOLOGY) X(MPI_ERR_DIMS) X(MPI_ERR_ARG) X(MPI_ERR_UNKNOWN) X(MPI_ERR_TRUNCATE)
    X(MPI_ERR_OTHER) X(MPI_ERR_INTERN) X(MPI_ERR_IN_STATUS) X(MPI_ERR_PENDING) X(MPI_ERR_KEYVAL)
    X(MPI_ERR_NO_MEM) X(MPI_ERR_BASE) X(MPI_ERR_INFO_KEY) X(MPI_ERR_INFO_VALUE)
    X(MPI_ERR_INFO_NOKEY) X(MPI_ERR_SPAWN) X(MPI_ERR_PORT) X(MPI_ERR_SERVICE) X(MPI_ERR_NAME)
    X(MPI_ERR_WIN) X(MPI_ERR_SIZE) X(MPI_ERR_DISP) X(MPI_ERR_INFO) X(MPI_ERR_LOCKTYPE)
    X(MPI_ERR_ASSERT) X(MPI_ERR_RMA_CONFLICT) X(MPI_ERR_RMA_SYNC) X(MPI_ERR_FILE)
    X(MPI_ERR_NOT_SAME) X(MPI_ERR_AMODE) X(MPI_ERR_UNSUPPORTED_DATAREP)
    X(MPI_ERR_UNSUPPORTED_OPERATION) X(MPI_ERR_NO_SUCH_FILE) X(MPI_ERR_FILE_EXISTS)
    X(MPI_ERR_BAD_FILE) X(MPI_ERR_ACCESS) X(MPI_ERR_NO_SPACE) X(MPI_ERR_QUOTA)
    X(MPI_ERR_READ_ONLY) X(MPI_ERR_FILE_IN_USE) X(MPI_ERR_DUP_DATAREP) X(MPI_ERR_CONVERSION)
    X(MPI_ERR_IO) X(MPI_ERR_RMA_RANGE) X(MPI_ERR_RMA_ATTACH) X(MPI_ERR_RMA_SHARED)
    X(MPI_ERR_RMA_FLAVOR)
#undef X
    }
    char *b = bufs[next++ & 7];
    snprintf(b, sizeof bufs[0], "class-%d", cls);
    return b;
}

static const char *rankname(int r)
{
    static char bufs[8][24];
    static int next;
    if (r == MPI_ANY_SOURCE) return "ANY_SOURCE";
    if (r == MPI_PROC_NULL) return "PROC_NULL";
    if (r == MPI_UNDEFINED) return "UNDEFINED";
    char *b = bufs[next++ & 7];
    snprintf(b, sizeof bufs[0], "%d", r);
    return b;
}
static const char *tagname(int t)
{
    static char bufs[8][24];
    static int next;
    if (t == MPI_ANY_TAG) return "ANY_TAG";
    char *b = bufs[next++ & 7];
    snprintf(b, sizeof bufs[0], "%d", t);
    return b;
}
static const char *countname(int c)
{
    static char bufs[8][24];
    static int next;
    if (c == MPI_UNDEFINED) return "UNDEFINED";
    char *b = bufs[next++ & 7];
    snprintf(b, sizeof bufs[0], "%d", c);
    return b;
}
static const char *levelname(int l)
{
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    }
    return "level-unknown";
}

/* A status as text: source, tag, count and elements in type t, cancelled. */
static const char *stat_str(const MPI_Status *s, MPI_Datatype t)
{
    static char bufs[4][160];
    static int next;
    int count = -7, elems = -7, canc = -7;
    int rc1 = MPI_Get_count(s, t, &count);
    int rc2 = MPI_Get_elements(s, t, &elems);
    int rc3 = MPI_Test_cancelled(s, &canc);
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "source=%s tag=%s count=%s elements=%s cancelled=%d%s%s%s",
             rankname(s->MPI_SOURCE), tagname(s->MPI_TAG), countname(count), countname(elems), canc,
             rc1 ? " get_count-failed" : "", rc2 ? " get_elements-failed" : "",
             rc3 ? " test_cancelled-failed" : "");
    return b;
}
/* A status that should be "empty" (MPI 3.1 section 3.7.3). */
static int is_empty(const MPI_Status *s)
{
    int count = -1;
    MPI_Get_count(s, MPI_BYTE, &count);
    return s->MPI_SOURCE == MPI_ANY_SOURCE && s->MPI_TAG == MPI_ANY_TAG && count == 0;
}

/* Run an MPI call; report it if it does not return MPI_SUCCESS. */
static int su_check(int line, const char *what, int rc)
{
    if (rc != MPI_SUCCESS) out("line %d: %s returned %s", line, what, errname(rc));
    return rc;
}
#define C(call) su_check(__LINE__, #call, (call))

/* Fill an MPI_Status with garbage, to see what a call writes into it. */
static void poison(MPI_Status *s)
{
    memset(s, 0x5a, sizeof *s);
}

static void su_start(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* Gather every rank's text to rank 0 and print it there; MPI_Finalize. */
static int finish(void)
{
    int len = (int)su_len;
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (me == 0) {
        lens = calloc(np, sizeof *lens);
        displs = calloc(np, sizeof *displs);
    }
    int rc = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Gather failed: %s\n", me, errname(rc));
        return 1;
    }
    int total = 0;
    if (me == 0) {
        for (int i = 0; i < np; i++) {
            displs[i] = total;
            total += lens[i];
        }
        all = malloc(total + 1);
    }
    rc = MPI_Gatherv(su_text ? su_text : "", len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
                     MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Gatherv failed: %s\n", me, errname(rc));
        return 1;
    }
    if (me == 0) {
        printf("size %d\n", np);
        for (int i = 0; i < np; i++) {
            const char *p = all + displs[i], *end = p + lens[i];
            while (p < end) {
                const char *nl = memchr(p, '\n', end - p);
                if (!nl) nl = end;
                printf("r%d: %.*s\n", i, (int)(nl - p), p);
                p = nl + 1;
            }
        }
    }
    rc = MPI_Finalize();
    int fin = 0;
    MPI_Finalized(&fin);
    if (me == 0) printf("finalize %s finalized=%d\n", rc == MPI_SUCCESS ? "MPI_SUCCESS" : "failed", fin);
    fflush(stdout);
    return 0;
}

#endif
