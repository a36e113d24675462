/*
 * rt_more.h — slow paths the generated wrappers call for communicator ids
 * and Fortran receive statuses (rt.c), and for the records that link
 * requests, statuses and messages (requests.c); kept out of rt.h, the hot
 * path.
 */
#ifndef ML_RT_MORE_H
#define ML_RT_MORE_H

#include <mpi.h>
#include <stdint.h>

#include "rt.h"

#pragma GCC visibility push(hidden)

/* MPI_Comm_idup(_with_info) returned comm: its global id is the parent's
 * next creation, given to comm at its first use. */
void ml_comm_idup(MPI_Comm comm, uint16_t parent);
/* MPI_Comm_create_group (parent, tag) and MPI_Comm_create_from_group
 * (ML_COMM_NONE, hash of the string tag) returned comm. */
void ml_comm_from_group(MPI_Comm comm, uint16_t parent, MPI_Group group, uint64_t tag);
/* Windows and files: the communicator each was created on (rt.c), for
 * the live slot of the collectives on them (kind ML_OBJ_WIN or ML_OBJ_FILE). */
#define ML_OBJ_WIN 1
#define ML_OBJ_FILE 2
void ml_obj_created(uint64_t handle, int kind, uint16_t comm);
uint16_t ml_obj_comm(uint64_t handle, int kind);
void ml_obj_forget(uint64_t handle, int kind);
void ml_obj_created_f(void *obj, int kind, void *comm);
void ml_obj_fortran_live(struct ml_call *c, void *obj, int kind, int forget);
void ml_obj_fortran_post(void *ierr);
/* Fortran MPI_Recv: the status argument to pass on (ours instead of
 * MPI_STATUS_IGNORE), remembered with ierr for ml_fortran_record. */
void *ml_fstatus_pre(void *status, void *ierr);
void ml_fstatus_post(void);
uint64_t ml_str_hash(const char *s);
/* 1 between MPI_Init and MPI_Finalize (handles may be converted). */
int ml_mpi_ready(void);

/* ---- requests.c: calls that link requests, statuses and messages --------
 * MPI_Improbe records the message it found; MPI_Isendrecv(_replace) its
 * request; Fortran entry points whose binding called PMPI_ itself (Open
 * MPI; MPICH's mpi_f08 for routines without a buffer) record requests and
 * statuses from the Fortran handles. */

/* MPI_Improbe: found (flag): P2P_REQ with the message handle and the
 * status's source, tag and size; else a P2P record that completed nothing. */
void ml_msg_note(MPI_Message m, uint16_t comm, int source, int tag, uint32_t bytes);
void ml_msg_note_st(MPI_Message m, uint16_t comm, MPI_Status *st);
void ml_rec_mrecv(struct ml_call *c, MPI_Message m, MPI_Datatype dt, MPI_Status *st, MPI_Request *req, int ret);
void ml_rec_improbe(struct ml_call *c, uint16_t comm, int source, int tag, int flag,
                    MPI_Message *msg, MPI_Status *st, int ret);
/* MPI_Isendrecv(_replace): SENDRECV + its request (mlformat.h). */
void ml_rec_isendrecv(struct ml_call *c, uint16_t comm, MPI_Datatype st, int dest, int stag,
                      int64_t scount, int source, MPI_Datatype rt, int64_t rcount, int rtag,
                      MPI_Request *req, int ret);

/* Fortran status size in MPI_Fint (mpif.h MPI_STATUS_SIZE; an mpi_f08
 * TYPE(MPI_Status) has the same size in both MPIs). */
#ifdef MPI_F_STATUS_SIZE
#define ML_FST MPI_F_STATUS_SIZE
#else
#define ML_FST ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* A Fortran status argument: the program's, or ours where it passes
 * MPI_STATUS_IGNORE. */
struct ml_fst1 {
    MPI_Fint *use;             /* what the call filled */
    MPI_Fint buf[ML_FST + 2];
};
void *ml_fst1_pre(struct ml_fst1 *s, void *status);

/* Wait/Test family, Start(all), Cancel, Request_free from Fortran: the
 * requests as C handles, taken before the call (it frees them), and the
 * statuses it fills (the program's or ours). */
enum ml_fd_kind {
    ML_FD_WAIT, ML_FD_TEST, ML_FD_WAITALL, ML_FD_TESTALL, ML_FD_WAITANY, ML_FD_TESTANY,
    ML_FD_WAITSOME, ML_FD_TESTSOME, ML_FD_START, ML_FD_STARTALL,
};
struct ml_fdone {
    int kind, n;               /* n: requests passed */
    uint64_t *rq;              /* their C handles */
    MPI_Fint *st;              /* Fortran statuses the call fills, or NULL */
    MPI_Fint *st_heap;         /* ours, allocated (many requests) */
    uint64_t rqb[ML_REQ_STACK];
    MPI_Fint stb[ML_REQ_STACK * ML_FST];
};
/* Before the call: reqs is one request (n == NULL) or an array of *n;
 * status/statuses the Fortran status argument (NULL: none); returns the
 * status argument to pass on. */
void *ml_fd_pre(struct ml_call *c, struct ml_fdone *d, int kind, void *n, void *reqs, void *status);
/* After the call (the binding called PMPI_ itself): record the completion.
 * flag, index (Waitany/Testany) or outcount and indices (Waitsome/Testsome)
 * as the kind has them; real and base: the binding itself and this entry
 * point's index base (Fortran indices are 1-based, MPICH 4.0's mpi_f08
 * returns 0-based ones: found out once with a request from MPI_PROC_NULL). */
void ml_fd_record(struct ml_call *c, struct ml_fdone *d, void *ierr, void *flag, void *index,
                  void *indices, void *real, int *base);
void ml_fd_post(struct ml_fdone *d);
/* Nonblocking and persistent point-to-point from Fortran: P2P_REQ with the
 * request the call returned. */
void ml_f_p2p_req(struct ml_call *c, void *comm, void *peer, void *tag, void *count, void *dtype,
                  void *req, void *ierr);
/* One-sided communication from Fortran (MPI_Put, MPI_Get, MPI_Accumulate,
 * ...): P2P with the target rank and the window's communicator, as the C
 * wrapper records it (count NULL: one element; count64: an MPI_Count). */
void ml_f_rma(struct ml_call *c, void *win, void *target, void *count, int count64, void *dtype,
              void *ierr);
/* MPI_Sendrecv(_replace) from Fortran: both halves, the receive from the status. */
void ml_f_sendrecv(struct ml_call *c, struct ml_fst1 *s, void *comm, void *stype, void *dest,
                   void *stag, void *scount, void *source, void *rtype, void *rcount, void *rtag,
                   void *ierr);
/* MPI_Improbe from Fortran. */
void ml_f_improbe(struct ml_call *c, struct ml_fst1 *s, void *comm, void *source, void *tag,
                  void *flag, void *msg, void *ierr);

/* A Fortran entry point with its own record (requests.c) instead of
 * ml_fortran_record: DECL declares what PRE, REC and POST share; REC runs
 * only when no inner C wrapper recorded the call. */
#define ML_FORTRAN_REC(RT, SYM, RID, COMM, PEER, TAG, DECL, PRE, REC, POST)         \
    RT SYM(ML_FARGS)                                                                 \
    {                                                                                \
        static RT (*real)(ML_FARGS);                                                 \
        if (ML_UNLIKELY(!real)) real = (RT(*)(ML_FARGS))ml_real(#SYM);               \
        struct ml_call c;                                                            \
        if (!ml_fenter(&c, RID, __builtin_return_address(0))) return real(ML_FPASS); \
        DECL;                                                                        \
        PRE;                                                                         \
        ml_fortran_live(&c, COMM, PEER, TAG);                                        \
        RT ret = real(ML_FPASS);                                                     \
        c.t1 = ml_now();                                                             \
        c.th->ok = 1;                                                                \
        c.th->fort_pending = 0;                                                      \
        if (!c.th->fort_taken) { REC; }                                              \
        c.th->fort_taken = 0;                                                        \
        POST;                                                                        \
        return ret;                                                                  \
    }

#pragma GCC visibility pop

#endif
