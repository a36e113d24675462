/*
 * stream.c — encoding, secret, sockets and authentication of the node state
 * stream (stream.h, docs/STREAM.md).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stream.h"

/* ---- byte encoding ---------------------------------------------------- */

void wb_reset(struct wbuf *b)
{
    b->n = 0;
    b->err = 0;
}

void wb_free(struct wbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void wb_raw(struct wbuf *b, const void *p, size_t n)
{
    if (b->err) return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 4096;
        while (c < b->n + n) c *= 2;
        uint8_t *q = realloc(b->p, c);
        if (!q) {
            b->err = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

void wb_u8(struct wbuf *b, uint8_t v) { wb_raw(b, &v, 1); }

void wb_uv(struct wbuf *b, uint64_t v)
{
    uint8_t t[10];
    int n = 0;
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        t[n++] = c | (v ? 0x80 : 0);
    } while (v);
    wb_raw(b, t, (size_t)n);
}

void wb_sv(struct wbuf *b, int64_t v)
{
    wb_uv(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void wb_u64(struct wbuf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++) t[i] = (uint8_t)(v >> (8 * i));
    wb_raw(b, t, 8);
}

void wb_str(struct wbuf *b, const char *s)
{
    size_t l = s ? strlen(s) : 0;
    wb_uv(b, l);
    wb_raw(b, s, l);
}

uint8_t rb_u8(struct rbuf *b)
{
    if (b->err || b->o >= b->n) {
        b->err = 1;
        return 0;
    }
    return b->p[b->o++];
}

uint64_t rb_uv(struct rbuf *b)
{
    uint64_t v = 0;
    for (int s = 0; s < 70; s += 7) {
        uint8_t c = rb_u8(b);
        if (b->err) return 0;
        if (s == 63 && (c & 0x7e)) break;   /* more than 64 bits */
        v |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) return v;
    }
    b->err = 1;
    return 0;
}

int64_t rb_sv(struct rbuf *b)
{
    uint64_t u = rb_uv(b);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

uint64_t rb_u64(struct rbuf *b)
{
    const uint8_t *p = rb_raw(b, 8);
    uint64_t v = 0;
    if (!p) return 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

const uint8_t *rb_raw(struct rbuf *b, size_t n)
{
    if (b->err || n > b->n - b->o) {
        b->err = 1;
        return NULL;
    }
    const uint8_t *p = b->p + b->o;
    b->o += n;
    return p;
}

void rb_str(struct rbuf *b, char *out, size_t n)
{
    uint64_t l = rb_uv(b);
    const uint8_t *p = b->err ? NULL : rb_raw(b, (size_t)(l > b->n ? b->n + 1 : l));
    size_t k = 0;
    if (p)
        for (; k < l && k + 1 < n; k++) out[k] = (p[k] < 32 || p[k] == 127) ? '?' : (char)p[k];
    if (n) out[k] = 0;
}

/* ---- the job secret ----------------------------------------------------- */

int ms_secret_new(uint8_t key[MS_SECRET_LEN], char hex[2 * MS_SECRET_LEN + 1])
{
    size_t got = 0;
    while (got < MS_SECRET_LEN) {
        ssize_t r = getrandom(key + got, MS_SECRET_LEN - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        got += (size_t)r;
    }
    for (int i = 0; i < MS_SECRET_LEN; i++) snprintf(hex + 2 * i, 3, "%02x", key[i]);
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int ms_secret_parse(const char *s, uint8_t key[MS_SECRET_LEN])
{
    for (int i = 0; i < MS_SECRET_LEN; i++) {
        int a = hexval((unsigned char)s[2 * i]), b = a < 0 ? -1 : hexval((unsigned char)s[2 * i + 1]);
        if (a < 0 || b < 0) return -1;
        key[i] = (uint8_t)(a << 4 | b);
    }
    for (const char *p = s + 2 * MS_SECRET_LEN; *p; p++)
        if (*p != '\n' && *p != '\r' && *p != ' ' && *p != '\t') return -1;
    return 0;
}

int ms_secret_load(const char *file, uint8_t key[MS_SECRET_LEN], char *err, size_t errn)
{
    if (!file) {
        const char *e = getenv("MPILENS_SECRET");
        if (!e || !*e) {
            snprintf(err, errn, "no secret: give --secret-file FILE or set MPILENS_SECRET");
            return -1;
        }
        if (ms_secret_parse(e, key)) {
            snprintf(err, errn, "MPILENS_SECRET is not 64 hex digits");
            return -1;
        }
        return 0;
    }
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errn, "cannot read the secret file %s: %s", file, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errn, "the secret file %s is not a regular file", file);
        return -1;
    }
    if (st.st_mode & 077) {
        close(fd);
        snprintf(err, errn, "the secret file %s can be read by others (mode %03o): chmod 600 %s", file,
                 (unsigned)(st.st_mode & 0777), file);
        return -1;
    }
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) n = 0;
    buf[n] = 0;
    if (ms_secret_parse(buf, key)) {
        snprintf(err, errn, "the secret file %s does not hold 64 hex digits", file);
        return -1;
    }
    return 0;
}

int ms_secret_write(const char *file, const char *hex, char *err, size_t errn)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errn, "cannot create the secret file %s: %s", file, strerror(errno));
        return -1;
    }
    char line[2 * MS_SECRET_LEN + 2];
    int l = snprintf(line, sizeof line, "%s\n", hex);
    if (fchmod(fd, 0600) != 0 || write(fd, line, (size_t)l) != l || close(fd) != 0) {
        snprintf(err, errn, "cannot write the secret file %s: %s", file, strerror(errno));
        unlink(file);
        return -1;
    }
    return 0;
}

/* ---- addresses ------------------------------------------------------------- */

int ms_parse_addr(const char *s, int listen, char *host, size_t hn, int *port, char *err, size_t errn)
{
    const char *p = NULL;
    if (s[0] == '[') {
        const char *e = strchr(s, ']');
        if (!e || e[1] != ':') goto bad;
        snprintf(host, hn, "%.*s", (int)(e - s - 1), s + 1);
        p = e + 2;
    } else {
        const char *c = strrchr(s, ':');
        if (c) {
            if (c == s) goto bad;
            snprintf(host, hn, "%.*s", (int)(c - s), s);
            p = c + 1;
        } else if (listen) {
            snprintf(host, hn, "127.0.0.1");
            p = s;
        } else {
            goto bad;
        }
    }
    char *end;
    long v = strtol(p, &end, 10);
    if (!*p || *end || v < 0 || v > 65535 || (!listen && v == 0) || !host[0]) goto bad;
    *port = (int)v;
    return 0;
bad:
    if (listen) snprintf(err, errn, "'%s' is not [ADDRESS:]PORT (e.g. 127.0.0.1:0, 7000)", s);
    else snprintf(err, errn, "'%s' is not HOST:PORT (e.g. 127.0.0.1:7000)", s);
    return -1;
}

int ms_listen(const char *host, int port, int *bound, char *err, size_t errn)
{
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host, ps, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errn, "cannot listen on %s:%d: %s", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0) break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        snprintf(err, errn, "cannot listen on %s:%d: %s", host, port, strerror(e));
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    *bound = port;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET) *bound = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6) *bound = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    return fd;
}

int ms_connect(const char *host, int port, int timeout_ms, char *err, size_t errn)
{
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host, ps, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errn, "cannot connect to %s:%d: %s", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = ECONNREFUSED;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            if (errno != EINPROGRESS) {
                e = errno;
                close(fd);
                fd = -1;
                continue;
            }
            struct pollfd pf = {fd, POLLOUT, 0};
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            if (poll(&pf, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 ||
                soerr) {
                e = soerr ? soerr : ETIMEDOUT;
                close(fd);
                fd = -1;
                continue;
            }
        }
        break;
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        snprintf(err, errn, "cannot connect to %s:%d: %s", host, port, strerror(e));
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* ---- authentication ----------------------------------------------------------- */

void ms_nonce(uint8_t n[MS_NONCE])
{
    char hex[2 * MS_SECRET_LEN + 1];
    if (ms_secret_new(n, hex) != 0) {
        /* no getrandom: not secret, only fresh (time, pid, address) */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x[4] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)getpid(), (uint64_t)(uintptr_t)n};
        sha256(x, sizeof x, n);
    }
}

void ms_hello(uint8_t out[MS_HELLO_LEN], const uint8_t nonce[MS_NONCE])
{
    memcpy(out, MS_MAGIC, 8);
    out[8] = MS_VERSION & 0xff;
    out[9] = MS_VERSION >> 8;
    out[10] = out[11] = 0;
    memcpy(out + 12, nonce, MS_NONCE);
}

int ms_hello_check(const uint8_t in[MS_HELLO_LEN], unsigned *version, uint8_t nonce[MS_NONCE])
{
    if (memcmp(in, MS_MAGIC, 8) != 0) return -1;
    *version = (unsigned)in[8] | (unsigned)in[9] << 8;
    if (*version != MS_VERSION) return -2;
    memcpy(nonce, in + 12, MS_NONCE);
    return 0;
}

void ms_proof(const uint8_t secret[MS_SECRET_LEN], const char *who, const uint8_t na[MS_NONCE],
              const uint8_t nf[MS_NONCE], uint8_t out[MS_PROOF_LEN])
{
    struct hmac256 h;
    char label[40];
    int l = snprintf(label, sizeof label, "mpilens stream v1 proof %s", who);
    hmac256_init(&h, secret, MS_SECRET_LEN);
    hmac256_update(&h, label, (size_t)l + 1);
    hmac256_update(&h, na, MS_NONCE);
    hmac256_update(&h, nf, MS_NONCE);
    hmac256_final(&h, out);
}

void ms_session(struct ms_sess *s, const uint8_t secret[MS_SECRET_LEN], const uint8_t na[MS_NONCE],
                const uint8_t nf[MS_NONCE], int agent)
{
    static const char lk[] = "mpilens stream v1 session", la[] = "agent to front end",
                      lf[] = "front end to agent";
    uint8_t k[SHA256_LEN], a2f[SHA256_LEN], f2a[SHA256_LEN];
    struct hmac256 h;
    hmac256_init(&h, secret, MS_SECRET_LEN);
    hmac256_update(&h, lk, sizeof lk);
    hmac256_update(&h, na, MS_NONCE);
    hmac256_update(&h, nf, MS_NONCE);
    hmac256_final(&h, k);
    hmac256(k, sizeof k, la, sizeof la, a2f);
    hmac256(k, sizeof k, lf, sizeof lf, f2a);
    memcpy(s->key_send, agent ? a2f : f2a, SHA256_LEN);
    memcpy(s->key_recv, agent ? f2a : a2f, SHA256_LEN);
    s->seq_send = s->seq_recv = 0;
    memset(k, 0, sizeof k);
}

static void tag_of(const uint8_t key[SHA256_LEN], uint64_t seq, const uint8_t *lt, const uint8_t *body, size_t n,
                   uint8_t out[SHA256_LEN])
{
    uint8_t sq[8];
    for (int i = 0; i < 8; i++) sq[i] = (uint8_t)(seq >> (8 * i));
    struct hmac256 h;
    hmac256_init(&h, key, SHA256_LEN);
    hmac256_update(&h, sq, 8);
    hmac256_update(&h, lt, 5);      /* u32 L, type */
    hmac256_update(&h, body, n);
    hmac256_final(&h, out);
}

void ms_seal(struct ms_sess *s, uint8_t type, const uint8_t *body, size_t n, struct wbuf *out)
{
    uint32_t L = (uint32_t)n + 1;
    uint8_t lt[5] = {(uint8_t)L, (uint8_t)(L >> 8), (uint8_t)(L >> 16), (uint8_t)(L >> 24), type};
    uint8_t t[SHA256_LEN];
    tag_of(s->key_send, s->seq_send++, lt, body, n, t);
    wb_raw(out, lt, 5);
    wb_raw(out, body, n);
    wb_raw(out, t, MS_TAG);
}

int ms_verify(struct ms_sess *s, const uint8_t *frame, size_t len)
{
    if (len < 5 + MS_TAG) return -1;
    uint8_t t[SHA256_LEN];
    tag_of(s->key_recv, s->seq_recv, frame, frame + 5, len - 5 - MS_TAG, t);
    if (ct_memcmp(t, frame + len - MS_TAG, MS_TAG) != 0) return -1;
    s->seq_recv++;
    return 0;
}

int ms_send_all(int fd, const void *p, size_t n)
{
    const uint8_t *q = p;
    while (n) {
        ssize_t k = send(fd, q, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pf = {fd, POLLOUT, 0};
                if (poll(&pf, 1, 5000) <= 0) return -1;
                continue;
            }
            return -1;
        }
        q += k;
        n -= (size_t)k;
    }
    return 0;
}

int ms_recv_exact(int fd, void *p, size_t n, int timeout_ms)
{
    uint8_t *q = p;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (n) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long el = (long)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= timeout_ms) return -2;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, (int)(timeout_ms - el));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r == 0 ? -2 : -1;
        ssize_t k = recv(fd, q, n, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return -1;
        q += k;
        n -= (size_t)k;
    }
    return 0;
}
