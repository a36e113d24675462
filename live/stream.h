/*
 * stream.h — the node-to-front-end state stream (docs/STREAM.md): what the
 * agent (agent.c) and the front end (remote.c) share: the message types, the
 * byte encoding, the per-job secret, the authentication handshake and the
 * per-message tags.
 *
 * On the wire, after the handshake, every message is
 *
 *     u32le L | u8 type | body (L - 1 bytes) | tag (16 bytes)
 *
 * tag = the first 16 bytes of HMAC-SHA-256(session key of the direction,
 * u64le sequence number | u32le L | type | body); the sequence number counts
 * the messages of the direction from 0 and is not sent, so a message that is
 * changed, dropped, replayed or reordered fails its tag.  Session keys come
 * from the job secret and the two nonces of the handshake, so nothing of one
 * connection verifies on another.  Nothing is encrypted: the state is not
 * secret, its integrity and origin are what is protected.
 */
#ifndef ML_STREAM_H
#define ML_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

#define MS_MAGIC "MLSTREAM"          /* 8 bytes, starts both hello messages */
#define MS_VERSION 1
#define MS_NONCE 32
#define MS_HELLO_LEN (8 + 2 + 2 + MS_NONCE)
#define MS_PROOF_LEN SHA256_LEN
#define MS_TAG 16
#define MS_MAX_MSG (8u << 20)        /* L at most: larger frames are refused */
#define MS_SECRET_LEN 32

enum ms_type {
    MS_INFO = 1,     /* str host, uv interval_ms, uv agent monotonic ns, uv ranks expected (0 unknown) */
    MS_NAMES = 2,    /* uv table id, then the routine-name table as in the rank file */
    MS_RANK = 3,     /* uv id, sv rank, sv size, sv pid, uv table id, sv thread level,
                        uv job id, str host, str MPI implementation */
    MS_CLOCK = 4,    /* uv id, uv clock kind, uv anchor0 ticks, sv anchor0 ns, uv anchor1 ticks,
                        sv anchor1 ns */
    MS_SITE = 5,     /* uv site id, u64le module hash, uv offset, str "file.c:42" */
    MS_COMM = 6,     /* uv id, uv index, uv size, uv remote size, uv flags, u64le global id,
                        uv members: 0 none (world), 1 list of sv world ranks (as deltas),
                        2 the same members as the communicator with this global id sent before */
    MS_FRAME = 7,    /* uv agent monotonic ns, uv ranks; per rank: uv id delta, uv mask, fields */
    MS_REQS = 8,     /* uv id, the active requests of a rank whose state is stable (see STREAM.md) */
    MS_BYE = 9,      /* the agent is done: every rank of it finished */
    /* front end to agent */
    MS_STOP = 10,    /* (empty) stop the ranks of this node: SIGTERM, SIGKILL 3 s later
                        (the deadlock detector's --stop) */
};
#define MS_MAX_BACK 4096             /* L at most of a front-end-to-agent message */

/* MS_FRAME rank mask */
enum {
    MSR_STATE = 1,      /* sv state, sv exit status */
    MSR_NTHREADS = 2,   /* uv threads in use */
    MSR_FAILURE = 4,    /* uv kind, sv signo, sv code, uv flags */
    MSR_GONE = 8,       /* uv 1: the process is gone (the agent looked), 0: it is there */
    MSR_THREADS = 16,   /* uv n, then n x (uv slot index, uv field mask, fields) */
};

/* MS_FRAME thread field mask: in this order; deltas against the previous
 * value of the same field (zero before the first) */
enum {
    MSF_SEQ = 1 << 0,      /* uv (new - old) mod 2^32 */
    MSF_ROUTINE = 1 << 1,  /* uv */
    MSF_USED = 1 << 2,     /* uv */
    MSF_SITE = 1 << 3,     /* uv site id (MS_SITE), 0 unknown */
    MSF_PEER = 1 << 4,     /* sv */
    MSF_TAG = 1 << 5,      /* sv */
    MSF_COMM = 1 << 6,     /* uv */
    MSF_TSTART = 1 << 7,   /* sv delta (ticks) */
    MSF_TEND = 1 << 8,     /* sv delta */
    MSF_AUX = 1 << 9,      /* sv delta */
    MSF_TID = 1 << 10,     /* uv */
    MSF_TIDLE = 1 << 11,   /* sv delta */
    MSF_WORK = 1 << 12,    /* uv: polls after work (mlformat.h, ml_live.work) */
};

/* ---- byte encoding ---------------------------------------------------- */

struct wbuf {
    uint8_t *p;
    size_t n, cap;
    int err;                 /* out of memory */
};

void wb_reset(struct wbuf *b);
void wb_free(struct wbuf *b);
void wb_raw(struct wbuf *b, const void *p, size_t n);
void wb_u8(struct wbuf *b, uint8_t v);
void wb_uv(struct wbuf *b, uint64_t v);            /* LEB128 */
void wb_sv(struct wbuf *b, int64_t v);             /* zigzag LEB128 */
void wb_u64(struct wbuf *b, uint64_t v);           /* 8 bytes little-endian */
void wb_str(struct wbuf *b, const char *s);        /* uv length, bytes */

struct rbuf {
    const uint8_t *p;
    size_t n, o;
    int err;                 /* read past the end or malformed: every later read gives 0 */
};

uint8_t rb_u8(struct rbuf *b);
uint64_t rb_uv(struct rbuf *b);
int64_t rb_sv(struct rbuf *b);
uint64_t rb_u64(struct rbuf *b);
const uint8_t *rb_raw(struct rbuf *b, size_t n);
/* A string into out (at most n - 1 bytes kept, control characters as '?'). */
void rb_str(struct rbuf *b, char *out, size_t n);

/* ---- the job secret ----------------------------------------------------- */

/* 32 bytes from getrandom(), and their hex (64 characters + NUL). */
int ms_secret_new(uint8_t key[MS_SECRET_LEN], char hex[2 * MS_SECRET_LEN + 1]);
/* Parse 64 hex digits (trailing white space allowed). 0 ok. */
int ms_secret_parse(const char *s, uint8_t key[MS_SECRET_LEN]);
/* Read the secret from file (refused when others can read it), or from the
 * environment variable MPILENS_SECRET when file is NULL.  0 ok; else a
 * one-line reason in err. */
int ms_secret_load(const char *file, uint8_t key[MS_SECRET_LEN], char *err, size_t errn);
/* Create file (mode 0600, must not exist) holding hex.  0 ok. */
int ms_secret_write(const char *file, const char *hex, char *err, size_t errn);

/* ---- addresses ------------------------------------------------------------- */

/* "HOST:PORT", "PORT" (listen: host 127.0.0.1), "[v6addr]:PORT". 0 ok. */
int ms_parse_addr(const char *s, int listen, char *host, size_t hn, int *port, char *err, size_t errn);
/* A listening TCP socket (non-blocking, close-on-exec); *bound: its port. */
int ms_listen(const char *host, int port, int *bound, char *err, size_t errn);
/* A connected TCP socket (blocking, close-on-exec), within timeout_ms. */
int ms_connect(const char *host, int port, int timeout_ms, char *err, size_t errn);

/* ---- authentication ----------------------------------------------------------- */

struct ms_sess {
    uint8_t key_send[SHA256_LEN], key_recv[SHA256_LEN];
    uint64_t seq_send, seq_recv;
};

void ms_nonce(uint8_t n[MS_NONCE]);
void ms_hello(uint8_t out[MS_HELLO_LEN], const uint8_t nonce[MS_NONCE]);
/* A peer's hello: 0 ok, -1 not ours (magic), -2 another version (*version). */
int ms_hello_check(const uint8_t in[MS_HELLO_LEN], unsigned *version, uint8_t nonce[MS_NONCE]);
/* Proof of the secret: who is "agent" or "front". */
void ms_proof(const uint8_t secret[MS_SECRET_LEN], const char *who, const uint8_t na[MS_NONCE],
              const uint8_t nf[MS_NONCE], uint8_t out[MS_PROOF_LEN]);
/* Session keys; agent = 1 on the agent's side. */
void ms_session(struct ms_sess *s, const uint8_t secret[MS_SECRET_LEN], const uint8_t na[MS_NONCE],
                const uint8_t nf[MS_NONCE], int agent);

/* Append one sealed message to out. */
void ms_seal(struct ms_sess *s, uint8_t type, const uint8_t *body, size_t n, struct wbuf *out);
/* Check the tag of one received message (frame = u32 L | type | body | tag,
 * len = 4 + L + MS_TAG).  0 ok (the receive sequence advances). */
int ms_verify(struct ms_sess *s, const uint8_t *frame, size_t len);

/* Write everything (MSG_NOSIGNAL); 0 ok. */
int ms_send_all(int fd, const void *p, size_t n);
/* Read exactly n bytes within timeout_ms; 0 ok, -1 closed/error, -2 timeout. */
int ms_recv_exact(int fd, void *p, size_t n, int timeout_ms);

#endif
