/*
 * test_stream.c — the node state stream (live/stream.c, live/remote.c):
 * the byte encoding, the secret (parse, load, file modes), addresses, the
 * handshake's proofs and session keys, per-message tags (a changed, replayed,
 * reordered or foreign message fails), a port already in use, and the front
 * end applying messages to remote ranks (what the live view then reads
 * through the live-file accessors), malformed messages refused, and a
 * deterministic mutation loop over a valid stream that must never crash.
 * Built with every tool source but tool/mpilens.c and run by
 * tests/cases/stream_units.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "remote.h"
#include "stream.h"

const char *mpilens_self_dir(void) { return "."; }   /* tool/mpilens.c is not linked */
struct an_xch;
struct an_xch *tool_xch;                               /* defined in tool/mpilens.c too */

static int failed, checks;

#define CHECK(cond, ...)                                                                                          \
    do {                                                                                                          \
        checks++;                                                                                                 \
        if (!(cond)) {                                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
            fprintf(stderr, __VA_ARGS__);                                                                         \
            fputc('\n', stderr);                                                                                  \
            failed = 1;                                                                                           \
        }                                                                                                         \
    } while (0)

/* ---- encoding --------------------------------------------------------------- */

static void test_encoding(void)
{
    static const uint64_t uv[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX};
    static const int64_t sv[] = {0, 1, -1, 63, -64, 64, -65, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
    struct wbuf w = {0};
    for (size_t i = 0; i < sizeof uv / sizeof *uv; i++) wb_uv(&w, uv[i]);
    for (size_t i = 0; i < sizeof sv / sizeof *sv; i++) wb_sv(&w, sv[i]);
    wb_u64(&w, 0x0123456789abcdefull);
    wb_str(&w, "rank\x01x");
    wb_str(&w, "");
    wb_u8(&w, 0xa5);
    CHECK(!w.err, "wbuf error");
    /* the sizes of LEB128 */
    struct wbuf t = {0};
    wb_uv(&t, 127);
    CHECK(t.n == 1, "uv 127 takes %zu bytes", t.n);
    wb_reset(&t);
    wb_uv(&t, 128);
    CHECK(t.n == 2, "uv 128 takes %zu bytes", t.n);
    wb_reset(&t);
    wb_sv(&t, -64);
    CHECK(t.n == 1, "sv -64 takes %zu bytes", t.n);
    wb_reset(&t);
    wb_uv(&t, UINT64_MAX);
    CHECK(t.n == 10, "uv max takes %zu bytes", t.n);

    struct rbuf r = {w.p, w.n, 0, 0};
    for (size_t i = 0; i < sizeof uv / sizeof *uv; i++) {
        uint64_t v = rb_uv(&r);
        CHECK(v == uv[i], "uv %zu: %llu != %llu", i, (unsigned long long)v, (unsigned long long)uv[i]);
    }
    for (size_t i = 0; i < sizeof sv / sizeof *sv; i++) {
        int64_t v = rb_sv(&r);
        CHECK(v == sv[i], "sv %zu: %lld != %lld", i, (long long)v, (long long)sv[i]);
    }
    CHECK(rb_u64(&r) == 0x0123456789abcdefull, "u64");
    char s[16];
    rb_str(&r, s, sizeof s);
    CHECK(!strcmp(s, "rank?x"), "string with a control character: '%s'", s);
    rb_str(&r, s, sizeof s);
    CHECK(!strcmp(s, ""), "empty string");
    CHECK(rb_u8(&r) == 0xa5 && !r.err, "u8");
    CHECK(r.o == r.n, "everything read");
    rb_u8(&r);
    CHECK(r.err, "reading past the end sets err");
    CHECK(rb_uv(&r) == 0, "after an error every read gives 0");

    /* a string is cut to the buffer, the rest skipped */
    wb_reset(&t);
    wb_str(&t, "file_with_a_long_name.c:1234");
    wb_uv(&t, 77);
    struct rbuf r2 = {t.p, t.n, 0, 0};
    rb_str(&r2, s, 8);
    CHECK(!strcmp(s, "file_wi") && rb_uv(&r2) == 77 && !r2.err, "long string cut: '%s'", s);

    /* malformed: 11 continuation bytes, a 65th bit, a string longer than the message */
    uint8_t bad[12];
    memset(bad, 0xff, sizeof bad);
    struct rbuf r3 = {bad, sizeof bad, 0, 0};
    rb_uv(&r3);
    CHECK(r3.err, "uv of 11+ bytes is an error");
    uint8_t b65[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    struct rbuf r4 = {b65, sizeof b65, 0, 0};
    rb_uv(&r4);
    CHECK(r4.err, "uv beyond 64 bits is an error");
    uint8_t ls[3] = {100, 'a', 'b'};
    struct rbuf r5 = {ls, sizeof ls, 0, 0};
    rb_str(&r5, s, sizeof s);
    CHECK(r5.err && s[0] == 0, "string longer than the message");
    wb_free(&w);
    wb_free(&t);
}

/* ---- secrets ----------------------------------------------------------------- */

static void test_secret(const char *tmp)
{
    uint8_t k[MS_SECRET_LEN], k2[MS_SECRET_LEN];
    char hex[2 * MS_SECRET_LEN + 1], err[512];
    CHECK(ms_secret_new(k, hex) == 0 && strlen(hex) == 64, "ms_secret_new");
    CHECK(ms_secret_parse(hex, k2) == 0 && !memcmp(k, k2, sizeof k), "hex round trip");
    char line[80];
    snprintf(line, sizeof line, "%s \r\n", hex);
    CHECK(ms_secret_parse(line, k2) == 0, "trailing white space allowed");
    snprintf(line, sizeof line, "%s0", hex);
    CHECK(ms_secret_parse(line, k2) != 0, "65 digits refused");
    CHECK(ms_secret_parse("abcd", k2) != 0, "short secret refused");
    snprintf(line, sizeof line, "%.63sg", hex);
    CHECK(ms_secret_parse(line, k2) != 0, "non-hex digit refused");
    uint8_t k3[MS_SECRET_LEN];
    char hex3[2 * MS_SECRET_LEN + 1];
    ms_secret_new(k3, hex3);
    CHECK(memcmp(k, k3, sizeof k) != 0, "two secrets differ");

    char f[4096];
    snprintf(f, sizeof f, "%s/secret", tmp);
    unlink(f);
    CHECK(ms_secret_write(f, hex, err, sizeof err) == 0, "write: %s", err);
    struct stat st;
    CHECK(stat(f, &st) == 0 && (st.st_mode & 0777) == 0600, "secret file mode %o", (unsigned)st.st_mode & 0777);
    CHECK(ms_secret_write(f, hex, err, sizeof err) != 0, "an existing secret file is not overwritten");
    memset(k2, 0, sizeof k2);
    CHECK(ms_secret_load(f, k2, err, sizeof err) == 0 && !memcmp(k, k2, sizeof k), "load: %s", err);
    chmod(f, 0644);
    CHECK(ms_secret_load(f, k2, err, sizeof err) != 0 && strstr(err, "can be read by others"),
          "mode 644 refused: %s", err);
    chmod(f, 0600);
    char g[4200];
    snprintf(g, sizeof g, "%s/nonexistent", tmp);
    CHECK(ms_secret_load(g, k2, err, sizeof err) != 0 && strstr(err, "cannot read the secret file"), "missing: %s",
          err);
    CHECK(ms_secret_load(tmp, k2, err, sizeof err) != 0 && strstr(err, "not a regular file"), "a directory: %s", err);
    snprintf(g, sizeof g, "%s/garbage", tmp);
    FILE *fp = fopen(g, "w");
    fputs("not a secret\n", fp);
    fclose(fp);
    chmod(g, 0600);
    CHECK(ms_secret_load(g, k2, err, sizeof err) != 0 && strstr(err, "64 hex digits"), "garbage: %s", err);
    unsetenv("MPILENS_SECRET");
    CHECK(ms_secret_load(NULL, k2, err, sizeof err) != 0 && strstr(err, "no secret"), "no secret at all: %s", err);
    setenv("MPILENS_SECRET", "xyz", 1);
    CHECK(ms_secret_load(NULL, k2, err, sizeof err) != 0, "bad MPILENS_SECRET");
    setenv("MPILENS_SECRET", hex3, 1);
    CHECK(ms_secret_load(NULL, k2, err, sizeof err) == 0 && !memcmp(k2, k3, sizeof k3), "MPILENS_SECRET");
    unsetenv("MPILENS_SECRET");
}

/* ---- addresses ----------------------------------------------------------------- */

static void addr(const char *s, int listen, int ok, const char *host, int port)
{
    char h[256] = "", err[256] = "";
    int p = -1;
    int rc = ms_parse_addr(s, listen, h, sizeof h, &p, err, sizeof err);
    if (ok) CHECK(rc == 0 && !strcmp(h, host) && p == port, "'%s' (%s): rc %d host '%s' port %d (%s)", s,
                  listen ? "listen" : "connect", rc, h, p, err);
    else CHECK(rc != 0 && err[0] && strchr(err, '\n') == NULL, "'%s' (%s) should be refused", s,
               listen ? "listen" : "connect");
}

static void test_addr(void)
{
    addr("127.0.0.1:7000", 0, 1, "127.0.0.1", 7000);
    addr("node12:1", 0, 1, "node12", 1);
    addr("[::1]:7000", 0, 1, "::1", 7000);
    addr("7000", 1, 1, "127.0.0.1", 7000);
    addr("0", 1, 1, "127.0.0.1", 0);
    addr("0.0.0.0:7000", 1, 1, "0.0.0.0", 7000);
    addr("7000", 0, 0, NULL, 0);          /* connect needs a host */
    addr("host:0", 0, 0, NULL, 0);        /* and a port */
    addr("host:", 0, 0, NULL, 0);
    addr(":7000", 0, 0, NULL, 0);
    addr("host:70000", 0, 0, NULL, 0);
    addr("host:7x", 0, 0, NULL, 0);
    addr("host:-1", 1, 0, NULL, 0);
    addr("[::1]7000", 0, 0, NULL, 0);
    addr("", 1, 0, NULL, 0);

    /* a port in use */
    char err[512];
    int port = 0, p2 = 0;
    int fd = ms_listen("127.0.0.1", 0, &port, err, sizeof err);
    CHECK(fd >= 0 && port > 0, "listen on port 0: %s", err);
    int fd2 = ms_listen("127.0.0.1", port, &p2, err, sizeof err);
    CHECK(fd2 < 0 && strstr(err, "in use"), "the same port twice: %s", fd2 < 0 ? err : "accepted");
    if (fd2 >= 0) close(fd2);
    /* rs_listen says so too */
    uint8_t sec[MS_SECRET_LEN] = {1};
    char a[32];
    snprintf(a, sizeof a, "%d", port);
    struct rsrv *s = rs_listen(a, sec, NULL, "t", err, sizeof err);
    CHECK(!s && strstr(err, "in use"), "rs_listen on a port in use: %s", s ? "accepted" : err);
    rs_free(s);
    s = rs_listen("127.0.0.1:bad", sec, NULL, "t", err, sizeof err);
    CHECK(!s && strstr(err, "is not [ADDRESS:]PORT"), "rs_listen bad address: %s", err);
    rs_free(s);
    if (fd >= 0) close(fd);
    /* nobody listening */
    int c = ms_connect("127.0.0.1", port, 1000, err, sizeof err);
    CHECK(c < 0 && strstr(err, "refused"), "connect to a closed port: %s", err);
    if (c >= 0) close(c);
}

/* ---- authentication ------------------------------------------------------------ */

static void test_auth(void)
{
    uint8_t sec[MS_SECRET_LEN], other[MS_SECRET_LEN];
    char hex[2 * MS_SECRET_LEN + 1];
    ms_secret_new(sec, hex);
    ms_secret_new(other, hex);
    uint8_t na[MS_NONCE], nf[MS_NONCE], nx[MS_NONCE];
    ms_nonce(na);
    ms_nonce(nf);
    ms_nonce(nx);
    CHECK(memcmp(na, nf, MS_NONCE) != 0, "nonces differ");

    uint8_t h[MS_HELLO_LEN], got[MS_NONCE];
    unsigned v = 0;
    ms_hello(h, na);
    CHECK(ms_hello_check(h, &v, got) == 0 && v == MS_VERSION && !memcmp(got, na, MS_NONCE), "hello");
    h[8] = MS_VERSION + 1;
    CHECK(ms_hello_check(h, &v, got) == -2 && v == MS_VERSION + 1u, "another version");
    h[0] = 'X';
    CHECK(ms_hello_check(h, &v, got) == -1, "not our magic");

    uint8_t pa[MS_PROOF_LEN], pf[MS_PROOF_LEN], px[MS_PROOF_LEN];
    ms_proof(sec, "agent", na, nf, pa);
    ms_proof(sec, "front", na, nf, pf);
    CHECK(memcmp(pa, pf, sizeof pa) != 0, "the two proofs differ (no reflection)");
    ms_proof(other, "agent", na, nf, px);
    CHECK(memcmp(pa, px, sizeof pa) != 0, "a wrong secret gives another proof");
    ms_proof(sec, "agent", na, nx, px);
    CHECK(memcmp(pa, px, sizeof pa) != 0, "another challenge gives another proof (no replay)");

    struct ms_sess ag, fe, fe_other, fe_wrong;
    ms_session(&ag, sec, na, nf, 1);
    ms_session(&fe, sec, na, nf, 0);
    ms_session(&fe_other, sec, na, nx, 0);      /* another connection */
    ms_session(&fe_wrong, other, na, nf, 0);    /* another secret */
    CHECK(!memcmp(ag.key_send, fe.key_recv, SHA256_LEN) && !memcmp(ag.key_recv, fe.key_send, SHA256_LEN),
          "session keys match across");
    CHECK(memcmp(ag.key_send, ag.key_recv, SHA256_LEN) != 0, "one key per direction");

    struct wbuf out = {0};
    const char *m[3] = {"first", "second", "third"};
    size_t off[4] = {0};
    for (int i = 0; i < 3; i++) {
        ms_seal(&ag, MS_FRAME, (const uint8_t *)m[i], strlen(m[i]), &out);
        off[i + 1] = out.n;
    }
    CHECK(out.n == 3 * (5 + MS_TAG) + strlen(m[0]) + strlen(m[1]) + strlen(m[2]), "sealed size %zu", out.n);
    CHECK(out.p[0] == strlen(m[0]) + 1 && out.p[4] == MS_FRAME, "frame header");
    /* in order: ok */
    struct ms_sess f1 = fe;
    for (int i = 0; i < 3; i++)
        CHECK(ms_verify(&f1, out.p + off[i], off[i + 1] - off[i]) == 0, "message %d verifies", i);
    CHECK(f1.seq_recv == 3, "receive sequence");
    /* replayed: the first message again after it was taken */
    f1 = fe;
    CHECK(ms_verify(&f1, out.p, off[1]) == 0 && ms_verify(&f1, out.p, off[1]) != 0, "a replay fails");
    /* reordered / dropped: the second first */
    f1 = fe;
    CHECK(ms_verify(&f1, out.p + off[1], off[2] - off[1]) != 0, "a dropped message makes the next fail");
    CHECK(f1.seq_recv == 0, "a failed tag does not advance the sequence");
    /* changed: every byte of the first message */
    for (size_t i = 0; i < off[1]; i++) {
        uint8_t *cp = malloc(off[1]);
        memcpy(cp, out.p, off[1]);
        cp[i] ^= 0x10;
        f1 = fe;
        if (ms_verify(&f1, cp, off[1]) == 0) CHECK(0, "a change of byte %zu is not detected", i);
        free(cp);
    }
    checks++;
    /* another connection, another secret, the wrong direction */
    f1 = fe_other;
    CHECK(ms_verify(&f1, out.p, off[1]) != 0, "a message of another connection fails");
    f1 = fe_wrong;
    CHECK(ms_verify(&f1, out.p, off[1]) != 0, "a message under another secret fails");
    struct ms_sess a1 = ag;
    CHECK(ms_verify(&a1, out.p, off[1]) != 0, "a message reflected to its sender fails");
    CHECK(ms_verify(&f1, out.p, 5) != 0, "too short");
    wb_free(&out);
}

/* ---- the front end applying messages -------------------------------------- */

struct msgs {
    struct wbuf b;
    uint8_t type[64];
    size_t start[65];
    int n;
};

static void put(struct msgs *m, uint8_t type, struct wbuf *body)
{
    m->type[m->n] = type;
    m->start[m->n] = m->b.n;
    wb_raw(&m->b, body->p, body->n);
    m->start[++m->n] = m->b.n;
    wb_reset(body);
}

/* A small valid stream: 2 ranks (5 and 7 of 8), routine names, a site, a
 * communicator, frames. */
static void make_stream(struct msgs *m)
{
    struct wbuf b = {0};
    memset(m, 0, sizeof *m);
    wb_str(&b, "nodeA");
    wb_uv(&b, 500);
    wb_uv(&b, 123456789);
    wb_uv(&b, 2);
    put(m, MS_INFO, &b);
    /* names: u32 count, "MPI_Init\0MPI_Recv\0MPI_Barrier\0" */
    static const char names[] = "MPI_Init\0MPI_Recv\0MPI_Barrier";
    uint32_t cnt = 3;
    wb_uv(&b, 1);
    wb_raw(&b, &cnt, 4);
    wb_raw(&b, names, sizeof names);
    put(m, MS_NAMES, &b);
    for (int i = 0; i < 2; i++) {
        wb_uv(&b, (uint64_t)i);
        wb_sv(&b, i ? 7 : 5);
        wb_sv(&b, 8);
        wb_sv(&b, 4242 + i);
        wb_uv(&b, 1);
        wb_sv(&b, 0);
        wb_uv(&b, 99);
        wb_str(&b, "nodeA");
        wb_str(&b, "openmpi");
        put(m, MS_RANK, &b);
    }
    wb_uv(&b, 0);
    wb_uv(&b, 2);         /* clock kind 2: ticks are ns */
    wb_uv(&b, 0);
    wb_sv(&b, 0);
    wb_uv(&b, 0);
    wb_sv(&b, 0);
    put(m, MS_CLOCK, &b);
    wb_uv(&b, 3);
    wb_u64(&b, 0xfeedull);
    wb_uv(&b, 0x1234);
    wb_str(&b, "app.c:42");
    put(m, MS_SITE, &b);
    /* a communicator of rank 5 (id 0): index 3, size 2, members 5, 7 */
    wb_uv(&b, 0);
    wb_uv(&b, 3);
    wb_uv(&b, 2);
    wb_uv(&b, 0);
    wb_uv(&b, 0);
    wb_u64(&b, 0xabc);
    wb_uv(&b, 1);
    wb_sv(&b, 5);
    wb_sv(&b, 2);
    put(m, MS_COMM, &b);
    /* the same members for rank 7 (id 1), by reference */
    wb_uv(&b, 1);
    wb_uv(&b, 2);
    wb_uv(&b, 2);
    wb_uv(&b, 0);
    wb_uv(&b, 0);
    wb_u64(&b, 0xabc);
    wb_uv(&b, 2);
    put(m, MS_COMM, &b);
    /* frame 1: both ranks running, one thread; rank 5 in MPI_Recv from 1 on comm 3 at site 3 */
    wb_uv(&b, 1000);
    wb_uv(&b, 2);
    for (int i = 0; i < 2; i++) {
        wb_uv(&b, 0);                                  /* id delta */
        wb_uv(&b, MSR_STATE | MSR_NTHREADS | MSR_THREADS);
        wb_sv(&b, ML_STATE_RUNNING);
        wb_sv(&b, 0);
        wb_uv(&b, 1);
        wb_uv(&b, 1);                                  /* one slot */
        wb_uv(&b, 0);
        wb_uv(&b, MSF_SEQ | MSF_ROUTINE | MSF_USED | MSF_SITE | MSF_PEER | MSF_TAG | MSF_COMM | MSF_TSTART);
        wb_uv(&b, 2);
        wb_uv(&b, i ? 2 : 1);
        wb_uv(&b, 1);
        wb_uv(&b, 3);
        wb_sv(&b, i ? -1 : 1);
        wb_sv(&b, 7);
        wb_uv(&b, i ? 2 : 3);
        wb_sv(&b, 5000);
    }
    put(m, MS_FRAME, &b);
    /* frame 2: only rank 7 (id 1) changed: t_start +100, peer unchanged */
    wb_uv(&b, 2000);
    wb_uv(&b, 1);
    wb_uv(&b, 1);
    wb_uv(&b, MSR_THREADS);
    wb_uv(&b, 1);
    wb_uv(&b, 0);
    wb_uv(&b, MSF_SEQ | MSF_TSTART);
    wb_uv(&b, 2);
    wb_sv(&b, 100);
    put(m, MS_FRAME, &b);
    /* an unknown message type (a later version): skipped */
    wb_uv(&b, 1);
    put(m, 77, &b);
    wb_free(&b);
}

static int feed(struct rsrv *s, struct rconn *c, struct msgs *m)
{
    for (int i = 0; i < m->n; i++)
        if (rs_test_msg(s, c, m->type[i], m->b.p + m->start[i], m->start[i + 1] - m->start[i]) != 0) return i;
    return -1;
}

static void test_remote(void)
{
    struct msgs m;
    make_stream(&m);
    struct rsrv *s = rs_test_new();
    struct rconn *c = rs_test_conn(s);
    int bad = feed(s, c, &m);
    CHECK(bad < 0, "valid stream refused at message %d", bad);
    struct lf *f[2] = {rs_take(s), rs_take(s)};
    CHECK(f[0] && f[1] && !rs_take(s), "two remote ranks");
    if (f[0] && f[1]) {
        CHECK(lf_is_remote(f[0]) && lf_rank(f[0]) == 5 && lf_rank(f[1]) == 7, "ranks %d %d", lf_rank(f[0]),
              lf_rank(f[1]));
        CHECK(lf_hdr(f[0])->size == 8 && lf_hdr(f[1])->pid == 4243, "size, pid");
        CHECK(!strcmp(lf_host(f[0]), "nodeA") && !strcmp(lf_impl(f[1]), "openmpi"), "host, impl");
        CHECK(lf_hdr(f[0])->state == ML_STATE_RUNNING && lf_nthreads(f[0]) == 1, "state, threads");
        struct ml_live l0, l1;
        CHECK(lf_live(f[0], 0, &l0) == 0 && lf_live(f[1], 0, &l1) == 0, "slots");
        CHECK(!strcmp(lf_routine(f[0], l0.routine), "MPI_Recv") && !strcmp(lf_routine(f[1], l1.routine),
                                                                           "MPI_Barrier"),
              "routines %s %s", lf_routine(f[0], l0.routine), lf_routine(f[1], l1.routine));
        CHECK(!strcmp(lf_site_text(lf_site_gid(f[0], l0.site)), "app.c:42"), "site text '%s'",
              lf_site_text(lf_site_gid(f[0], l0.site)));
        CHECK(l0.peer == 1 && l0.tag == 7 && l0.comm == 3 && l0.t_start == 5000 && l0.seq == 2, "rank 5 slot");
        CHECK(l1.t_start == 5100 && l1.seq == 4 && l1.peer == -1, "rank 7 slot after the delta frame: %llu %u",
              (unsigned long long)l1.t_start, l1.seq);
        CHECK(lf_world(f[0], 3, 1) == 7 && lf_world(f[1], 2, 0) == 5, "communicator members (by list and by gid)");
        CHECK(lf_remote_state(f[0]) == LF_REMOTE_LIVE, "live");
    }
    rs_free(s);

    /* malformed messages: each closes the stream (rs_test_msg -1) */
    struct {
        const char *what;
        int at;                  /* message index to replace */
        uint8_t body[24];
        size_t n;
    } cases[] = {
        {"a frame naming a rank never announced", 9, {0x01, 0x01, 0x05, 0x01, 0x01, 0}, 5},
        {"a frame with an unknown rank mask bit", 9, {0x01, 0x01, 0x00, 0x40}, 4},
        {"a frame cut short", 9, {0x01, 0x02, 0x00, 0x01}, 4},
        {"a thread slot beyond the maximum", 9, {0x01, 0x01, 0x00, 0x10, 0x01, 0x80, 0x04, 0x01, 0x00}, 9},
        {"a rank announced out of order", 3, {0x05, 0x02, 0x10, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00}, 9},
        {"a rank number out of range", 3, {0x01, 0x01, 0x10, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00}, 9},
        {"a names table out of sequence", 1, {0x05, 0, 0, 0, 0}, 5},
        {"a communicator referring to members never sent", 7, {0x01, 0x02, 0x02, 0x00, 0x00, 9, 9, 9, 9, 9, 9, 9, 9, 0x02}, 14},
        {"a site id 0", 5, {0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00}, 11},
        {"clock kind 9", 4, {0x00, 0x09, 0, 0, 0, 0}, 6},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct msgs mm;
        make_stream(&mm);
        struct rsrv *t = rs_test_new();
        struct rconn *tc = rs_test_conn(t);
        int i = cases[k].at, rc = 0;
        for (int j = 0; j < mm.n && !rc; j++) {
            if (j == i) rc = rs_test_msg(t, tc, mm.type[j], cases[k].body, cases[k].n);
            else rc = rs_test_msg(t, tc, mm.type[j], mm.b.p + mm.start[j], mm.start[j + 1] - mm.start[j]);
            if (rc) CHECK(j == i, "%s: refused at message %d, not %d", cases[k].what, j, i);
        }
        CHECK(rc != 0, "%s: accepted", cases[k].what);
        CHECK(rs_test_msg(t, tc, MS_BYE, NULL, 0) != 0, "%s: the stream stays closed", cases[k].what);
        rs_free(t);
        wb_free(&mm.b);
    }

    /* mutations: a byte changed, cut, or a message dropped, 20000 times;
     * whatever happens, nothing crashes and the accessors stay sane */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned refused = 0;
    for (int it = 0; it < 20000; it++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        struct rsrv *t = rs_test_new();
        struct rconn *tc = rs_test_conn(t);
        int which = (int)(x % (uint64_t)m.n), how = (int)((x >> 8) % 3);
        for (int j = 0; j < m.n; j++) {
            size_t n = m.start[j + 1] - m.start[j];
            uint8_t buf[256];
            memcpy(buf, m.b.p + m.start[j], n);
            if (j == which) {
                if (how == 2) continue;               /* dropped */
                if (how == 1) n = n ? (size_t)((x >> 16) % n) : 0;   /* cut */
                else if (n) buf[(x >> 16) % n] ^= (uint8_t)(1 + ((x >> 24) % 255));
            }
            if (rs_test_msg(t, tc, m.type[j], buf, n) != 0) {
                refused++;
                break;
            }
        }
        struct lf *g;
        while ((g = rs_take(t))) {
            struct ml_live l;
            for (unsigned i = 0; i < lf_nthreads(g); i++)
                if (lf_live(g, i, &l) == 0) {
                    (void)lf_routine(g, l.routine);
                    (void)lf_site_text(lf_site_gid(g, l.site));
                    (void)lf_world(g, l.comm, 0);
                }
        }
        rs_free(t);
    }
    CHECK(refused > 1000, "mutations: only %u streams refused", refused);
    printf("ok mutations: 20000 streams, %u refused, no crash\n", refused);
    wb_free(&m.b);
    lf_global_cleanup();
}

int main(int argc, char **argv)
{
    const char *tmp = argc > 1 ? argv[1] : "/tmp";
    test_encoding();
    test_secret(tmp);
    test_addr();
    test_auth();
    test_remote();
    if (failed) {
        printf("test_stream: FAILED\n");
        return 1;
    }
    printf("test_stream: %d checks ok\n", checks);
    return 0;
}
