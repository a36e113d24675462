/*
 * mlformat.h — the rank-file contract between the runtime (writer) and the
 * mpilens tool (reader).  docs/FORMAT.md is the prose version of this file;
 * the two must agree.
 *
 * One file per MPI process, "rank-NNNNN.mlt" in the run directory.  The
 * runtime maps it MAP_SHARED and writes into the mapping as calls happen, so
 * everything written survives the death of the process (even SIGKILL): the
 * pages belong to the kernel's page cache, not to the process.
 *
 *   [ header          ML_HEADER_SIZE bytes     struct ml_header          ]
 *   [ routine names   hdr.routines_off         u32 count, then NUL-separated names ]
 *   [ module map      hdr.modules_off          ML_MAX_MODULES x struct ml_module ]
 *   [ site table      hdr.sites_off            ML_MAX_SITES x u64 return address ]
 *   [ live state      hdr.live_off             ML_MAX_THREADS x struct ml_live ]
 *   [ call chains     hdr.chains_off           hdr.max_chains x hdr.chain_depth x u64 (only
 *                                              when recorded with a stack depth above 1) ]
 *   [ chunk 0 ][ chunk 1 ] ...   from hdr.chunks_off, hdr.chunk_size each
 *
 * Writer/reader contract (single writer per chunk, any number of readers):
 *  - A chunk belongs to one thread.  The thread writes a record completely,
 *    then publishes it by a release store of chunk->committed (bytes of
 *    records after the chunk header).  A reader loads committed with acquire
 *    semantics and never reads past it, nor past the end of the file: a file
 *    cut at any byte is readable up to its last complete record.
 *  - hdr.nchunks is incremented (release) after a chunk's header is written.
 *  - A live slot is a sequence lock: seq is odd while the owner writes it.
 *  - Site table entries go from 0 to an address once and never change.
 *    With call chains, a site's chain entry is written completely before
 *    its site table entry (release): a reader that sees the site sees its
 *    chain.
 *
 * All integers are little-endian, all records 8-byte aligned.  Readers treat
 * every field as untrusted.
 */
#ifndef MLFORMAT_H
#define MLFORMAT_H

#include <stdint.h>

#define ML_MAGIC "MPILENS\x1a"      /* 8 bytes */
#define ML_VERSION 1
#define ML_HEADER_SIZE 8192
#define ML_MAX_MODULES 1024
#define ML_MAX_SITES 65536           /* power of two: open-addressing table */
#define ML_MAX_DEPTH 8               /* call-chain frames per site at most (mpilens run -k) */
#define ML_MAX_CHAINS 16384          /* sites with chains at most (power of two, <= ML_MAX_SITES) */
#define ML_MAX_THREADS 256
#define ML_CHUNK_SIZE (256 * 1024)
#define ML_CHUNK_MAGIC 0x4b4e4843u   /* "CHNK" */

/* Clock sample: a rank's monotonic clock against rank 0's, and the tick
 * counter against the monotonic clock. */
struct ml_clock_sync {
    uint64_t ticks;        /* tick counter when sampled */
    int64_t mono_ns;       /* CLOCK_MONOTONIC when sampled (ns) */
    int64_t offset_ns;     /* rank 0 clock minus this node's clock (ns) */
    int64_t rtt_ns;        /* round trip of the best ping-pong, 0 if local */
    uint32_t valid;        /* 1 if this sample was taken */
    uint32_t pad;
};

enum ml_state {                /* ml_header.state */
    ML_STATE_RUNNING = 1,      /* between first call and MPI_Finalize */
    ML_STATE_FINALIZED = 2,    /* MPI_Finalize returned */
    ML_STATE_EXITED = 3,       /* process exited (status in exit_status) */
};

enum ml_failure_kind {         /* ml_failure.kind */
    ML_FAIL_NONE = 0,
    ML_FAIL_SIGNAL = 1,        /* fatal signal: signo, code, addr, backtrace */
    ML_FAIL_EXIT = 2,          /* exit() or return from main without MPI_Finalize */
    ML_FAIL_MPI_ERROR = 3,     /* MPI error: code = error code, routine/site of the call */
    ML_FAIL_ABORT = 4,         /* MPI_Abort: code = errorcode */
    ML_FAIL_DEADLOCK = 5,      /* stopped by the deadlock detector */
    ML_FAIL_VANISHED = 6,      /* the process ended without a record of its own (SIGKILL,
                                * the OOM killer): written by mpilens run, which saw it
                                * gone; ticks = when, code = number of the look (ranks
                                * seen gone in the same look share it) */
};

/* ml_failure.flags */
enum ml_failure_flag {
    ML_FAILF_SOFT = 1,         /* the process went on after it (the program's signal
                                * handler returned, an MPI error was returned to the
                                * program) or was still exiting: a later failure
                                * replaces it */
    ML_FAILF_SENDER = 2,       /* SIGNAL: addr is the pid of the sending process
                                * (si_code <= 0: kill, raise, sigqueue) */
    ML_FAILF_OTHER_THREAD = 4, /* SIGNAL: arrived in a thread that never called MPI;
                                * routine/site are those of the first MPI thread */
    ML_FAILF_STACK = 8,        /* SIGNAL: SIGSEGV next to the stack pointer: stack overflow */
    ML_FAILF_HANDLER = 16,     /* SIGNAL: a handler of the program (or of its
                                * libraries) was called for it */
    ML_FAILF_FATAL = 32,       /* MPI_ERROR: raised under MPI_ERRORS_ARE_FATAL */
    ML_FAILF_MAIN = 64,        /* EXIT: main returned (no call of exit() was seen) */
    ML_FAILF_NOSTATUS = 128,   /* EXIT: the exit status is unknown */
    ML_FAILF_NESTED = 256,     /* ABORT: MPI_Abort called inside another MPI call
                                * (an error handler or callback); see the live slot */
    ML_FAILF_UNDER_EXIT = 512, /* EXIT: _exit/_Exit/quick_exit (no exit handlers ran) */
    ML_FAILF_STOPPING = 1024,  /* VANISHED: seen gone after mpilens run was told to stop
                                * the job (SIGTERM, SIGHUP, Ctrl+C): gone in that stop */
};

/* How this process failed, written by the runtime's failure capture (signal
 * handler, exit hooks, MPI error paths, MPI_Abort wrapper).  The writer
 * clears kind, writes the other fields, then stores kind last (release): a
 * reader that sees kind != ML_FAIL_NONE sees the rest.  A record without
 * ML_FAILF_SOFT is final; a soft one may be replaced by a later failure.
 *
 * frames[] are return addresses, innermost first (look up address - 1).
 * For SIGNAL, frames[0] is the interrupted instruction plus one, so it reads
 * like a return address too.  The runtime's own frames are dropped. */
struct ml_failure {
    uint32_t kind;             /* enum ml_failure_kind; written last */
    int32_t signo;             /* signal number */
    int32_t code;              /* si_code, exit status, MPI error code or abort code */
    int32_t errclass;          /* MPI error class (this implementation's number) */
    uint64_t addr;             /* faulting address (si_addr), or sender pid (ML_FAILF_SENDER) */
    uint64_t ticks;            /* when */
    uint16_t routine;          /* MPI routine in progress (or 0xffff) */
    uint16_t flags;            /* enum ml_failure_flag */
    uint32_t site;             /* its call site */
    uint32_t nframes;          /* backtrace entries valid */
    uint32_t tid;              /* thread that failed */
    uint64_t frames[32];       /* return addresses, innermost first */
    char message[256];         /* MPI_ERROR: "MPI_ERR_CLASS: error string"; else free text */
};

struct ml_header {
    char magic[8];             /* ML_MAGIC */
    uint32_t version;          /* ML_VERSION */
    uint32_t header_size;      /* ML_HEADER_SIZE */
    uint32_t endian;           /* 0x01020304 as written by the writer */
    uint32_t chunk_size;
    uint64_t routines_off, modules_off, sites_off, live_off, chunks_off;
    uint32_t max_modules, max_sites, max_threads, nroutines;
    int32_t rank;              /* MPI_COMM_WORLD rank, -1 before known */
    int32_t size;              /* MPI_COMM_WORLD size, -1 before known */
    int32_t pid;
    int32_t state;             /* enum ml_state */
    int32_t exit_status;
    int32_t thread_level;      /* provided level from MPI_Init_thread, -1 if MPI_Init */
    uint64_t job_id;           /* same for every rank of one job */
    char host[64];
    char mpi_impl[32];         /* "openmpi" or "mpich" (the runtime build) */
    char mpi_version[256];     /* MPI_Get_library_version */
    char exe[512];             /* /proc/self/exe */
    char cmdline[1024];        /* argv, NUL-separated */
    /* Tick counter: ns = (ticks - tick0) * ns_per_tick from the two anchors. */
    uint32_t clock_kind;       /* 1 = TSC, 2 = CLOCK_MONOTONIC (1 tick = 1 ns) */
    uint32_t pad0;
    uint64_t anchor0_ticks; int64_t anchor0_ns;  /* taken at file creation */
    uint64_t anchor1_ticks; int64_t anchor1_ns;  /* refreshed as the run goes */
    struct ml_clock_sync sync_init, sync_final;
    uint32_t nchunks;          /* chunks with a valid header */
    uint32_t nmodules;         /* valid entries in the module map */
    uint32_t nthreads;         /* live slots in use */
    uint32_t ncomms, ntypes;   /* definitions handed out so far */
    uint32_t pad1;
    struct ml_failure failure; /* kind == ML_FAIL_NONE unless this process failed */
    /* Records the runtime could not write (disk full, file system stalled:
     * no chunk to be had without stopping the program): calls dropped, and
     * the tick of the first one (0: none).  Zero in older files. */
    uint64_t dropped;
    uint64_t dropped_since;
    /* Call chains (mpilens run -k N, N > 1): a site is then the chain of up
     * to chain_depth return addresses from the program's call of the MPI
     * routine outwards, and two chains that reach the same call are two
     * sites.  Site id s (1 <= s <= max_chains) has its chain entry at
     * chains_off + (s - 1) x chain_depth x 8: chain_depth u64 return
     * addresses, innermost first (equal to the site table's entry), 0 after
     * the last.  chains_off 0 (and every older file): no chains, a site is
     * its one return address. */
    uint64_t chains_off;
    uint32_t chain_depth;      /* 2 .. ML_MAX_DEPTH when chains_off != 0 */
    uint32_t max_chains;       /* entries in the chain table */
};

struct ml_module {             /* one mapping of /proc/self/maps, executable */
    uint64_t start, end, file_offset;
    char path[232];
};
/* file_offset of a module that is a Python source file (runtime/python.c):
 * its sites are lines, address - start; start and end lie beyond any user
 * address */
#define ML_MODULE_SOURCE UINT64_MAX

/* Live state of one thread: what it is doing now.  The owner writes
 * routine..t_start (and aux) under the sequence lock when a call starts, and
 * one end stamp (one atomic store, after the lock) when it ends:
 *   t_end   the call completed something (every call but the ones below);
 *   t_idle  the call completed nothing: MPI_Test/Testany/Testsome/Testall,
 *           MPI_Iprobe/Improbe, MPI_Request_get_status returning flag = false,
 *           Wait or Test calls with nothing active.
 * So the thread is inside MPI exactly while t_start > t_end and
 * t_start > t_idle; it made progress when t_end changed; it is polling
 * without progress while t_idle keeps changing and t_end does not.
 * A thread that spends more than ML_WORK_GAP_NS outside MPI between two polls
 * is computing between polls, not only polling: such a poll bumps `work`
 * (not when the thread spent the gap waiting for a CPU: runtime/rt.c,
 * "work between polls").
 * Local calls that never wait (MPI_Comm_rank, MPI_Wtime, MPI_Get_count,
 * MPI_Type_size, ...: runtime/gen/genwrap.py LOCAL) do not touch the slot:
 * it shows the last call that communicates.
 *
 * aux depends on the routine (the wait-for graph of mpilens top uses it):
 *   collectives, collectives creating communicators/windows/files, and
 *   collectives on a window or file (MPI_Win_fence, MPI_File_write_all, ...,
 *   whose comm is the communicator the window or file was created on):
 *       number of this collective on its communicator in this process
 *       (1, 2, ...; the same instance has the same number on every member;
 *       0 from Open MPI's Fortran bindings, which call PMPI_ directly);
 *       MPI_Intercomm_create: that number in the low 32 bits, and at the
 *       local leader the world rank of the remote leader + 1 in the high
 *       32 (0 elsewhere or unknown); its peer is the local leader (a rank
 *       of comm, the local communicator) and its tag the tag;
 *   MPI_Wait, MPI_Test, MPI_Request_get_status: the request handle;
 *   MPI_Waitall/any/some, MPI_Testall/any/some: the number of requests;
 *   MPI_Sendrecv(_replace): source (low 32 bits) and receive tag (high 32);
 *   anything else: stale (left from an earlier call).
 * One routine is not MPI: the last name of the routine table, ML_JOIN_NAME,
 * shown while the thread is in pthread_join outside MPI calls (no trace
 * record); peer is the live-slot index of the thread it joins, or
 * ML_PEER_NONE when that thread has no slot; it ends with t_end. */
#define ML_JOIN_NAME "pthread_join"
#define ML_WORK_GAP_NS 20000000   /* 20 ms: above scheduling noise, below compute phases */
#define ML_SAMPLE_GAP_NS 500000   /* a polling thread reads its scheduler counters this often */

struct ml_live {
    uint32_t seq;              /* odd while the start fields are written */
    uint16_t routine;          /* current or last routine */
    uint8_t work;              /* polls after work: count (mod 256) of calls that completed
                                * nothing (t_idle) and started more than ML_WORK_GAP_NS
                                * after the thread's previous call ended */
    uint8_t used;              /* 1 once the thread made a call */
    uint32_t site;             /* call site of that routine */
    int32_t peer;              /* comm rank waited for, root, or ML_PEER_NONE */
    int32_t tag;
    uint32_t comm;             /* comm definition index */
    uint64_t t_start, t_end;   /* ticks: start of the current/last call, end of the last
                                * call that completed something */
    union {
        uint64_t aux;          /* see above */
        uint64_t calls;        /* former name (never written as a count) */
    };
    uint64_t tid;              /* kernel thread id */
    uint64_t t_idle;           /* ticks: end of the last call that completed nothing */
};

struct ml_chunk {              /* 64-byte header, then records */
    uint32_t magic;            /* ML_CHUNK_MAGIC */
    uint32_t thread;           /* live-slot index of the owning thread */
    uint64_t tid;
    uint32_t seq;              /* this thread's chunk number: 0, 1, 2 ... */
    uint32_t committed;        /* bytes of complete records after the header */
    uint64_t base_ticks;       /* ticks the first record's dt is relative to */
    uint64_t pad[4];
};

/* ---- records --------------------------------------------------------- */

enum ml_rec_type {
    ML_REC_CALL = 1,     /* header only: routine, site, time */
    ML_REC_P2P = 2,      /* + struct ml_p2p */
    ML_REC_P2P_REQ = 3,  /* + struct ml_p2p + u64 request (nonblocking/persistent start, MPI_Imrecv; MPI_Improbe: its message) */
    ML_REC_COLL = 4,     /* + struct ml_coll; nonblocking collectives: + u64 request
                            + u64 instance number on the communicator (aux above);
                            a persistent collective's init (MPI_Allreduce_init ...):
                            + u64 request + u64 0 */
    ML_REC_SENDRECV = 5, /* + struct ml_p2p (send part) + struct ml_p2p (receive part);
                            MPI_Isendrecv(_replace): + u64 request, and where the library's
                            completion status does not describe the receive: + u64 flags
                            (ML_SR_NOSTATUS) */
    ML_REC_COMPLETE = 6, /* + u32 n, u32 pad, then n x struct ml_done (at most ML_DONE_MAX) */
    ML_REC_COMPLETE_MORE = 7, /* same layout: more requests of the preceding call (dt = dur = 0) */
    ML_REC_IO = 8,       /* + struct ml_io: MPI_File_open (flags ML_IO_OPEN, the new handle,
                            then the file name) and the MPI_File_read / write family
                            (count x type size) */
    ML_REC_TIME = 16,    /* no call: u64 absolute ticks; next dt is relative to it */
    ML_REC_RESULT = 17,  /* no call: i32 error code of the preceding call */
    ML_REC_LONGDUR = 18, /* no call: u64 duration of the preceding call in ticks */
    ML_REC_COMM = 19,    /* definition: struct ml_comm_def + members */
    ML_REC_TYPE = 20,    /* definition: struct ml_type_def */
    ML_REC_COMM_NAME = 22, /* definition: struct ml_comm_name (MPI_Comm_set_name) */
    ML_REC_REPEAT = 21,  /* no call: the preceding call, which completed nothing, was
                            followed by dt more calls equal to it but for their times
                            (same routine, site and payload, nothing recorded between
                            them); the last of them ended dur ticks after the first
                            call started.  routine and site are the call's.  Updated
                            in place while the run goes on (dt and dur in one 8-byte
                            store); the next record's dt counts from the first call.
                            24 bytes where the call's record is (words 3): a u64
                            follows, the repeats' ticks inside their calls (summed),
                            stored before dt and dur. */
};

/* Routine ids have bit 15 set when the call came in through a Fortran entry. */
#define ML_ROUTINE_FORTRAN 0x8000u

struct ml_rec {          /* 16 bytes, starts every record */
    uint8_t type;        /* enum ml_rec_type */
    uint8_t words;       /* record length in 8-byte words (>= 2); 0 for definition
                            records (COMM, TYPE), whose length in bytes is in dur */
    uint16_t routine;
    uint32_t site;       /* index in the site table; 0 = unknown */
    uint32_t dt;         /* start minus previous start (or chunk base / TIME record) */
    uint32_t dur;        /* end minus start; UINT32_MAX means LONGDUR follows */
};

#define ML_DONE_MAX 80            /* requests per COMPLETE record */
#define ML_COMM_NONE 0xffffu     /* no communicator */
#define ML_TYPE_NONE 0xffffu
#define ML_PEER_NONE (-32768)    /* routine has no peer */
#define ML_PEER_CANCELLED (-32769) /* ml_done.source: the status says cancelled (MPI_Test_cancelled) */
#define ML_SR_NOSTATUS 1u        /* SENDRECV flags: the request's completion status is not the
                                    receive's (MPICH 4.0's MPI_Isendrecv) */

struct ml_p2p {          /* 16 bytes; one-sided calls (MPI_Put, MPI_Get, ...) too: comm = the
                            window's, peer = target rank in it, tag ML_PEER_NONE, origin bytes */
    uint16_t comm;       /* comm definition index */
    uint16_t dtype;      /* datatype definition index */
    int32_t peer;        /* rank in comm (actual source for receives), or MPI_PROC_NULL / ANY_SOURCE as recorded */
    int32_t tag;
    uint32_t bytes;      /* count x type size, saturating */
};

struct ml_coll {         /* 16 bytes */
    uint16_t comm;
    uint16_t dtype;
    int32_t root;        /* root rank in comm, or ML_PEER_NONE */
    uint32_t bytes;      /* bytes this rank sends (count x size of the send type) */
    uint32_t rbytes;     /* bytes this rank receives */
};

struct ml_io {           /* 24 bytes */
    uint64_t file;       /* MPI_File handle value in this process */
    uint64_t bytes;      /* count x type size asked for (not what the status says) */
    uint16_t dtype;      /* datatype definition index, or ML_TYPE_NONE */
    uint16_t flags;      /* ML_IO_* */
    uint32_t pad;
};
#define ML_IO_READ 1u    /* a read */
#define ML_IO_WRITE 2u   /* a write */
#define ML_IO_OPEN 4u    /* MPI_File_open: file is the new handle, bytes 0 */
#define ML_IO_NONBLOCKING 8u /* MPI_File_i*: bytes counted at the start of the request */
#define ML_IO_NAME_MAX 256  /* an OPEN record is followed by the file name, NUL-terminated and
                               padded to 8 bytes, at most this long with its NUL (the tail) */

struct ml_done {         /* 24 bytes: one completed request */
    uint64_t request;    /* handle value as returned by the starting call */
    int32_t source;      /* from the status (comm rank), ML_PEER_NONE, or ML_PEER_CANCELLED */
    int32_t tag;
    uint32_t bytes;      /* received bytes from the status */
    int32_t index;       /* position in the request array */
};

struct ml_comm_def {     /* followed by size + remote_size i32 world ranks */
    uint32_t index;
    uint32_t size;       /* local group size */
    uint32_t remote_size;/* remote group size (inter-communicators), else 0 */
    uint32_t flags;      /* 1 = inter-communicator, 2 = MPI_COMM_WORLD (no members),
                            4 = a virtual topology: after the members, a u32 count and
                            that many i32 ranks of the communicator, this process's
                            in-neighbours (those a neighbourhood collective receives
                            from, in the standard's order; Cartesian: MPI_PROC_NULL
                            left out) */
    uint64_t handle;     /* MPI_Comm value in this process */
    uint64_t global_id;  /* same on every member */
};

/* The name the program gave communicator definition `index` with
 * MPI_Comm_set_name (the last one recorded counts; readers that do not know
 * the record skip it). */
struct ml_comm_name {
    uint32_t index;
    uint32_t pad;
    char name[64];       /* MPI_Comm_get_name after the call, NUL-terminated */
};

struct ml_type_def {
    uint32_t index;
    int32_t size;        /* MPI_Type_size */
    uint64_t handle;
    char name[48];       /* MPI_Type_get_name, or "" */
};

#endif
