/*
 * requests.c — records that link requests, statuses and messages, so that
 * `mpilens report` can pair every message (docs/REPORT.md, "Matching"):
 *
 *   MPI_Improbe            whether it found a message, and which (P2P_REQ
 *                          with the message handle; P2P when it found none)
 *   MPI_Isendrecv(_replace) its request (SENDRECV + u64), so the receive
 *                          half of a wildcard is resolved at its completion
 *   Fortran entry points   whose binding calls PMPI_ itself (Open MPI; MPICH's
 *                          mpi_f08 for routines without a buffer): the
 *                          requests of nonblocking and persistent calls, the
 *                          requests and statuses of the Wait/Test family,
 *                          Start(all), Cancel and Request_free, both halves
 *                          of Sendrecv(_replace), Improbe's message
 *
 * Nothing here is on the hot path of a C call: these are only the routines
 * named above.  Fortran handles are MPI_Fint (an mpi_f08 handle is a derived
 * type whose first member is one), converted with MPI_*_f2c after the call
 * (requests: before it, since the call frees them); a Fortran status is read
 * with MPI_Status_f2c, and where the program passes MPI_STATUS_IGNORE or
 * MPI_STATUSES_IGNORE the binding gets a status of ours instead (the program
 * sees no difference).
 */
#include "rt.h"
#include "rt_more.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- persistent collectives' requests -------------------------------------
 * MPICH 4.0's MPI_Testall given an array of statuses fails (MPI_ERR_IN_STATUS,
 * fatal by default) when one of its requests is a persistent collective's
 * (MPI_Allreduce_init ...), without the runtime too; where the program
 * passes MPI_STATUSES_IGNORE, the runtime's statuses in its place would
 * make the call fail where the program's works.  So the handles of
 * persistent collectives' requests are kept (up to ML_PCOLL_MAX at a time),
 * and an array call holding one of them keeps MPI_STATUSES_IGNORE (the
 * statuses of receives it completes are then not recorded). */
#define ML_PCOLL_MAX 256
static uint64_t pcoll[ML_PCOLL_MAX];
static int npcoll;   /* slots in use (the fast path reads it alone) */
static pthread_mutex_t pcoll_lock = PTHREAD_MUTEX_INITIALIZER;

void ml_pcoll_note(uint64_t h)
{
    if (!h) return;
    pthread_mutex_lock(&pcoll_lock);
    int free_at = -1;
    for (int i = 0; i < ML_PCOLL_MAX; i++) {
        if (pcoll[i] == h) {
            free_at = -2;
            break;
        }
        if (!pcoll[i] && free_at == -1) free_at = i;
    }
    if (free_at >= 0) {
        pcoll[free_at] = h;
        __atomic_store_n(&npcoll, npcoll + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&pcoll_lock);
}

void ml_pcoll_forget(uint64_t h)
{
    if (!h || !__atomic_load_n(&npcoll, __ATOMIC_RELAXED)) return;
    pthread_mutex_lock(&pcoll_lock);
    for (int i = 0; i < ML_PCOLL_MAX; i++)
        if (pcoll[i] == h) {
            pcoll[i] = 0;
            __atomic_store_n(&npcoll, npcoll - 1, __ATOMIC_RELAXED);
            break;
        }
    pthread_mutex_unlock(&pcoll_lock);
}

MPI_Status *ml_status_buf_req(int n, MPI_Status *buf, const uint64_t *reqs, int nreq)
{
    if (reqs && nreq > 0 && __atomic_load_n(&npcoll, __ATOMIC_RELAXED)) {
        int hit = 0;
        pthread_mutex_lock(&pcoll_lock);
        for (int k = 0; k < nreq && !hit; k++)
            for (int i = 0; reqs[k] && i < ML_PCOLL_MAX; i++)
                if (pcoll[i] == reqs[k]) {
                    hit = 1;
                    break;
                }
        pthread_mutex_unlock(&pcoll_lock);
        if (hit) return MPI_STATUSES_IGNORE;
    }
    return ml_status_buf(n, buf);
}

/* ---- C routines ----------------------------------------------------------- */

/* ---- matched probes' messages ---------------------------------------------
 * MPI_Mrecv and MPI_Imrecv name a message, not a communicator: the
 * communicator, source, tag and size of the message are those its matched
 * probe (MPI_Mprobe, MPI_Improbe) saw, kept here by its handle until the
 * receive takes it (ML_MSG_MAX at a time; the oldest is forgotten beyond, and
 * its receive is then recorded as a plain call).  Without it the completion
 * of an MPI_Imrecv request had a source in an unknown communicator (Open
 * MPI: its request is a new handle; MPICH's is the message's). */
#define ML_MSG_MAX 64
static struct ml_msg {
    uint64_t handle;             /* 0: free */
    uint64_t age;
    uint16_t comm;
    int32_t source, tag;
    uint32_t bytes;
} msgs[ML_MSG_MAX];
static uint64_t msg_age;
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;

void ml_msg_note(MPI_Message m, uint16_t comm, int source, int tag, uint32_t bytes)
{
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC || source == MPI_PROC_NULL) return;
    uint64_t h = ML_HANDLE(m);
    pthread_mutex_lock(&msg_lock);
    struct ml_msg *e = NULL, *free_e = NULL, *oldest = &msgs[0];
    for (int i = 0; i < ML_MSG_MAX && !e; i++) {
        if (msgs[i].handle == h) e = &msgs[i];
        else if (!msgs[i].handle && !free_e) free_e = &msgs[i];
        else if (msgs[i].age < oldest->age) oldest = &msgs[i];
    }
    if (!e) e = free_e ? free_e : oldest;
    e->handle = h;
    e->age = ++msg_age;
    e->comm = comm;
    e->source = source;
    e->tag = tag;
    e->bytes = bytes;
    pthread_mutex_unlock(&msg_lock);
}

/* MPI_Mprobe: the message its status describes */
void ml_msg_note_st(MPI_Message m, uint16_t comm, MPI_Status *st)
{
    int64_t n = ml_status_bytes(st);
    ml_msg_note(m, comm, st->MPI_SOURCE, st->MPI_TAG, n > 0 ? (uint32_t)n : 0);
}

static int msg_take(MPI_Message m, struct ml_msg *out)
{
    uint64_t h = ML_HANDLE(m);
    int found = 0;
    pthread_mutex_lock(&msg_lock);
    for (int i = 0; i < ML_MSG_MAX; i++)
        if (msgs[i].handle == h) {
            *out = msgs[i];
            msgs[i].handle = 0;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&msg_lock);
    return found;
}

/* MPI_Mrecv (st) and MPI_Imrecv (req) of message m (its handle before the
 * call, which sets it to MPI_MESSAGE_NULL): P2P (Mrecv) or P2P_REQ (Imrecv,
 * its request) with the probe's communicator, source, tag and size, the
 * receive's datatype; a message from MPI_PROC_NULL: peer MPI_PROC_NULL, no
 * communicator, 0 bytes.  The analysis counts the message at its probe
 * (match.c), not here. */
void ml_rec_mrecv(struct ml_call *c, MPI_Message m, MPI_Datatype dt, MPI_Status *st, MPI_Request *req, int ret)
{
    struct ml_msg e = {0};
    int noproc = m == MPI_MESSAGE_NO_PROC;
    if (ret != MPI_SUCCESS || m == MPI_MESSAGE_NULL || (!noproc && !msg_take(m, &e))) {
        ml_rec_call(c, ret);
        return;
    }
    int64_t size = 0;
    uint16_t t = dt == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_cached(dt, &size);
    if (noproc) {
        e.comm = ML_COMM_NONE;
        e.source = MPI_PROC_NULL;
        e.tag = MPI_ANY_TAG;
        e.bytes = 0;
    } else if (st && !req) {
        /* the status of the receive itself: the same message */
        int64_t n = ml_status_bytes(st);
        e.source = st->MPI_SOURCE;
        e.tag = st->MPI_TAG;
        if (n >= 0) e.bytes = (uint32_t)n;
    }
    ml_rec_p2p_raw(c, e.comm, t, e.source, e.tag, e.bytes, req ? ML_HANDLE(*req) : 0, ret, req != NULL, 0);
}

void ml_rec_improbe(struct ml_call *c, uint16_t comm, int source, int tag, int flag,
                    MPI_Message *msg, MPI_Status *st, int ret)
{
    if (ret != MPI_SUCCESS || !flag) {
        /* found nothing: as an unsuccessful MPI_Iprobe (completed nothing) */
        ml_rec_p2p_raw(c, comm, ML_TYPE_NONE, source, tag, 0, 0, ret, 0, 1);
        return;
    }
    uint32_t bytes = 0;
    if (source != MPI_PROC_NULL && st) {
        int n = 0;
        source = st->MPI_SOURCE;
        tag = st->MPI_TAG;
        if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED && n > 0) bytes = (uint32_t)n;
    }
    if (msg) ml_msg_note(*msg, comm, source, tag, bytes);
    ml_rec_p2p_raw(c, comm, ML_TYPE_NONE, source, tag, bytes, msg ? ML_HANDLE(*msg) : 0, ret, 1, 0);
}

/* Does the library's MPI_Isendrecv complete with the receive's status?
 * MPICH 4.0's does not (its request's status is not filled).  Found out
 * once, on a private duplicate of MPI_COMM_SELF: a message to itself taken
 * by a wildcard receive half. */
static int isendrecv_status_ok(void)
{
#if MPI_VERSION >= 4
    static int ok = -1;
    int v = __atomic_load_n(&ok, __ATOMIC_RELAXED);
    if (v >= 0) return v;
    v = 1;
    MPI_Comm self;
    if (ml_mpi_ready() && PMPI_Comm_dup(MPI_COMM_SELF, &self) == MPI_SUCCESS) {
        int out = 7, in = 0, n = -1;
        MPI_Request r;
        MPI_Status st;
        st.MPI_SOURCE = st.MPI_TAG = -7;
        if (PMPI_Isendrecv(&out, 1, MPI_INT, 0, 4242, &in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, self,
                           &r) == MPI_SUCCESS &&
            PMPI_Wait(&r, &st) == MPI_SUCCESS)
            v = st.MPI_SOURCE == 0 && st.MPI_TAG == 4242 && PMPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS &&
                n == 1;
        PMPI_Comm_free(&self);
    }
    __atomic_store_n(&ok, v, __ATOMIC_RELAXED);
    return v;
#else
    return 1;
#endif
}

void ml_rec_isendrecv(struct ml_call *c, uint16_t comm, MPI_Datatype st, int dest, int stag,
                      int64_t scount, int source, MPI_Datatype rt, int64_t rcount, int rtag,
                      MPI_Request *req, int ret)
{
    int64_t ssize = 0, rsize = 0;
    uint16_t sti = st == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_index(st, &ssize);
    uint16_t rti = rt == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_index(rt, &rsize);
    uint64_t h = ret == MPI_SUCCESS && req ? ML_HANDLE(*req) : 0;
    uint64_t flags = h && !isendrecv_status_ok() ? ML_SR_NOSTATUS : 0;
    struct ml_rec *r = ml_rec_begin(c, ML_REC_SENDRECV, flags ? 8 : 7);
    struct ml_p2p *p = (struct ml_p2p *)(r + 1);
    p[0] = (struct ml_p2p){comm, sti, dest, stag, ml_bytes(scount, ssize)};
    p[1] = (struct ml_p2p){comm, rti, source, rtag, ml_bytes(rcount, rsize)};
    memcpy(p + 2, &h, 8);
    if (flags) memcpy((char *)(p + 2) + 8, &flags, 8);
    ml_rec_end(c, r, ret);
}

/* ---- Fortran -------------------------------------------------------------- */

static int fint(const void *p, int dflt)
{
    return p ? *(const MPI_Fint *)p : dflt;
}

static int fret(const void *ierr)
{
    return fint(ierr, MPI_SUCCESS);
}

/* The program passed one of the Fortran "ignore" constants (mpif.h and
 * `use mpi` share MPI_F_STATUS(ES)_IGNORE; Open MPI's mpi_f08 constants are
 * the same objects, MPICH's are MPI_F08_STATUS(ES)_IGNORE). */
static int f_ignored(const void *s)
{
    if (s == (const void *)MPI_F_STATUS_IGNORE || s == (const void *)MPI_F_STATUSES_IGNORE) return 1;
#ifdef MPICH_VERSION
    if (s == (const void *)MPI_F08_STATUS_IGNORE || s == (const void *)MPI_F08_STATUSES_IGNORE) return 1;
#endif
    return 0;
}

void *ml_fst1_pre(struct ml_fst1 *s, void *status)
{
    s->use = NULL;
    if (!status) return status;
    s->use = f_ignored(status) ? s->buf : (MPI_Fint *)status;
    return s->use;
}

void ml_f_p2p_req(struct ml_call *c, void *comm, void *peer, void *tag, void *count, void *dtype,
                  void *req, void *ierr)
{
    int ret = fret(ierr);
    uint16_t ci = ML_COMM_NONE;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    uint64_t h = 0;
    if (ml_mpi_ready()) {
        if (comm) ci = ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm));
        if (dtype) dt = PMPI_Type_f2c(*(MPI_Fint *)dtype);
        if (req && ret == MPI_SUCCESS) h = ML_HANDLE(PMPI_Request_f2c(*(MPI_Fint *)req));
    }
    ml_rec_p2p(c, ci, dt, fint(peer, ML_PEER_NONE), fint(tag, ML_PEER_NONE), fint(count, 0), h, ret, 1);
}

void ml_f_rma(struct ml_call *c, void *win, void *target, void *count, int count64, void *dtype,
              void *ierr)
{
    int ret = fret(ierr);
    uint16_t ci = ML_COMM_NONE;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    if (ml_mpi_ready()) {
        if (win) ci = ml_obj_comm(ML_HANDLE(PMPI_Win_f2c(*(MPI_Fint *)win)), ML_OBJ_WIN);
        if (dtype) dt = PMPI_Type_f2c(*(MPI_Fint *)dtype);
    }
    int64_t n = !count ? 1 : count64 ? *(const int64_t *)count : fint(count, 0);
    ml_rec_p2p(c, ci, dt, fint(target, ML_PEER_NONE), ML_PEER_NONE, n, 0, ret, 0);
}

void ml_f_sendrecv(struct ml_call *c, struct ml_fst1 *s, void *comm, void *stype, void *dest,
                   void *stag, void *scount, void *source, void *rtype, void *rcount, void *rtag,
                   void *ierr)
{
    int ret = fret(ierr);
    if (!ml_mpi_ready() || !comm || !stype) {
        ml_rec_call(c, ret);
        return;
    }
    uint16_t ci = ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm));
    MPI_Datatype st = PMPI_Type_f2c(*(MPI_Fint *)stype);
    MPI_Datatype rt = rtype ? PMPI_Type_f2c(*(MPI_Fint *)rtype) : st;
    MPI_Status cs, *csp = MPI_STATUS_IGNORE;
    if (s->use && ret == MPI_SUCCESS && PMPI_Status_f2c(s->use, &cs) == MPI_SUCCESS) csp = &cs;
    int sc = fint(scount, 0);
    ml_rec_sendrecv(c, ci, st, fint(dest, ML_PEER_NONE), fint(stag, ML_PEER_NONE), sc,
                    fint(source, ML_PEER_NONE), rt, rcount ? fint(rcount, 0) : sc, fint(rtag, ML_PEER_NONE),
                    csp, ret);
}

void ml_f_improbe(struct ml_call *c, struct ml_fst1 *s, void *comm, void *source, void *tag,
                  void *flag, void *msg, void *ierr)
{
    int ret = fret(ierr), fl = fint(flag, 0) != 0;
    uint16_t ci = ML_COMM_NONE;
    MPI_Status cs;
    MPI_Message m = MPI_MESSAGE_NULL;
    if (ml_mpi_ready()) {
        if (comm) ci = ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm));
        if (fl && ret == MPI_SUCCESS) {
            if (!s->use || PMPI_Status_f2c(s->use, &cs) != MPI_SUCCESS) fl = 0;
            if (msg) m = PMPI_Message_f2c(*(MPI_Fint *)msg);
        }
    } else {
        fl = 0;
    }
    ml_rec_improbe(c, ci, fint(source, ML_PEER_NONE), fint(tag, ML_PEER_NONE), fl, &m, &cs, ret);
}

/* ---- Fortran Wait/Test family, Start(all), Cancel, Request_free ---------- */

void *ml_fd_pre(struct ml_call *c, struct ml_fdone *d, int kind, void *n, void *reqs, void *status)
{
    d->kind = kind;
    d->n = 0;
    d->rq = d->rqb;
    d->st = d->st_heap = NULL;
    int cnt = n ? fint(n, 0) : 1;
    if (cnt < 0 || !reqs || !ml_mpi_ready()) cnt = 0;
    if (cnt > ML_REQ_STACK && !(d->rq = malloc(sizeof *d->rq * (size_t)cnt))) {
        d->rq = d->rqb;
        cnt = 0;
    }
    const MPI_Fint *fr = reqs;
    for (int i = 0; i < cnt; i++) d->rq[i] = ML_HANDLE(PMPI_Request_f2c(fr[i]));
    d->n = cnt;
    /* what the call waits for, as the C wrappers publish it */
    if (kind == ML_FD_WAIT || kind == ML_FD_TEST)
        ml_live_wait_aux(c, ML_PEER_NONE, ML_PEER_NONE, ML_COMM_NONE, cnt ? d->rq[0] : 0);
    else if (kind != ML_FD_START && kind != ML_FD_STARTALL)
        ml_live_wait_aux(c, ML_PEER_NONE, ML_PEER_NONE, ML_COMM_NONE, (uint64_t)(int64_t)cnt);
    if (!status) return status;
    int m = kind == ML_FD_WAIT || kind == ML_FD_TEST || kind == ML_FD_WAITANY || kind == ML_FD_TESTANY ? 1 : cnt;
    if (!f_ignored(status)) {
        d->st = status;
        return status;
    }
    if (m <= ML_REQ_STACK) {
        d->st = d->stb;
    } else {
        d->st = d->st_heap = malloc(sizeof(MPI_Fint) * ML_FST * (size_t)m);
        if (!d->st) return status;         /* statuses stay ignored */
    }
    return d->st;
}

void ml_fd_post(struct ml_fdone *d)
{
    if (d->rq != d->rqb) free(d->rq);
    free(d->st_heap);
    d->rq = d->rqb;
    d->st_heap = NULL;
}

/* Index base of a Fortran Waitany/Testany/Waitsome/Testsome entry point:
 * call it once on a receive from MPI_PROC_NULL (completes at once, moves no
 * message) and see what it says.  The nesting gate is closed meanwhile, so
 * nothing of this is recorded. */
typedef long (*ml_f6)(void *, void *, void *, void *, void *, void *);

static int index_base(int kind, void *real, int *cache)
{
    int b = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (b >= 0) return b;
    b = 1;
    MPI_Request r;
    static char none;
    if (real && ml_mpi_ready() &&
        PMPI_Irecv(&none, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &r) == MPI_SUCCESS) {
        MPI_Fint one = 1, fr = PMPI_Request_c2f(r), x = -99, fl = 0, ind[2] = {-99, -99}, err = 0;
        MPI_Fint st[2 * ML_FST + 4];
        ml_f6 fn = (ml_f6)real;
        struct ml_thread *th = &ml_th;
        int ok = th->ok, fp = th->fort_pending;
        th->ok = 0;
        th->fort_pending = 0;
        switch (kind) {
        case ML_FD_WAITANY: fn(&one, &fr, &x, st, &err, NULL); break;
        case ML_FD_TESTANY: fn(&one, &fr, &x, &fl, st, &err); break;
        default: fn(&one, &fr, &x, ind, st, &err); x = x == 1 ? ind[0] : -99; break;
        }
        th->ok = ok;
        th->fort_pending = fp;
        if (err == MPI_SUCCESS && x == 0) b = 0;
        if (fr != PMPI_Request_c2f(MPI_REQUEST_NULL)) PMPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    __atomic_store_n(cache, b, __ATOMIC_RELAXED);
    return b;
}

void ml_fd_record(struct ml_call *c, struct ml_fdone *d, void *ierr, void *flag, void *index,
                  void *indices, void *real, int *base)
{
    int ret = fret(ierr);
    int ok = ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS;
    int total = d->n, n = 0, idx_kind = 0, fl = fint(flag, 1) != 0;
    int ib[ML_REQ_STACK], *idx = NULL, *idx_heap = NULL;
    switch (d->kind) {
    case ML_FD_WAIT:
    case ML_FD_START:
        n = total;
        break;
    case ML_FD_TEST:
        n = fl ? total : 0;
        break;
    case ML_FD_WAITALL:
    case ML_FD_STARTALL:
        n = total;
        break;
    case ML_FD_TESTALL:
        n = fl ? total : 0;
        break;
    case ML_FD_WAITANY:
    case ML_FD_TESTANY: {
        int i = fint(index, MPI_UNDEFINED);
        if (ok && fl && index && i != MPI_UNDEFINED) {
            ib[0] = i - index_base(d->kind, real, base);
            idx = ib;
            n = 1;
            idx_kind = 1;
        }
        break;
    }
    case ML_FD_WAITSOME:
    case ML_FD_TESTSOME: {
        int out = fint(index, MPI_UNDEFINED);
        if (ok && indices && out != MPI_UNDEFINED && out > 0 && out <= total) {
            idx = out <= ML_REQ_STACK ? ib : (idx_heap = malloc(sizeof(int) * (size_t)out));
            if (!idx) break;
            int bs = index_base(d->kind, real, base);
            const MPI_Fint *fi = indices;
            for (int k = 0; k < out; k++) idx[k] = fi[k] - bs;
            n = out;
            idx_kind = 2;
        }
        break;
    }
    }
    /* the statuses ml_rec_done reads: st[i] (all), st[0] (any), st[k] (some) */
    MPI_Status cb[ML_REQ_STACK], *cst = NULL, *cst_heap = NULL;
    int ms = idx_kind == 1 ? 1 : n;
    if (d->st && n > 0 && ok) {
        cst = ms <= ML_REQ_STACK ? cb : (cst_heap = malloc(sizeof(MPI_Status) * (size_t)ms));
        for (int k = 0; cst && k < ms; k++)
            if (PMPI_Status_f2c(d->st + (size_t)k * ML_FST, &cst[k]) != MPI_SUCCESS) {
                cst = NULL;
            }
    }
    ml_rec_done(c, ret, n, d->rq, cst, idx, idx_kind, total);
    free(cst_heap);
    free(idx_heap);
}
