/*
 * view_serve.c — `mpilens view --serve DIR`: the page of `mpilens view` from
 * a web server on 127.0.0.1, for runs too big for one file.  A random token
 * (128 bits, getrandom) is the first part of every URL: GET /TOKEN/ is the
 * page, GET /TOKEN/data?from=NS&to=NS&ranks=A-B the calls and messages of
 * that window as JSON (gzip when the client accepts it); a wrong token is
 * 403, any other path 404, any other method 405.  The run is analysed once
 * at start (the page's own analysis, tool/view.c); the window queries read
 * the view's columns decoded once into arrays kept in memory.  One request
 * at a time, poll()-based, each connection closed after its answer; SIGINT
 * or SIGTERM ends the server with exit status 0 (before it serves, while
 * the run is analysed, Ctrl+C ends it as any command: status 130).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis.h"
#include "view.h"

/* ---- answers ------------------------------------------------------------------- */

static void write_all(int fd, const void *p, size_t n)
{
    const char *s = p;
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;   /* the client went away */
        s += w;
        n -= (size_t)w;
    }
}

static void answer(int fd, int code, const char *type, const char *enc, const void *body, size_t n)
{
    const char *what = code == 200 ? "OK" : code == 403 ? "Forbidden" : code == 404 ? "Not Found"
                     : code == 405 ? "Method Not Allowed" : code == 400 ? "Bad Request" : "Internal Server Error";
    char hdr[512];
    int hl = snprintf(hdr, sizeof hdr,
                      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%s"
                      "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                      code, what, type, n, enc ? "Content-Encoding: " : "", enc ? enc : "", enc ? "\r\n" : "");
    write_all(fd, hdr, (size_t)hl);
    write_all(fd, body, n);
}

static void answer_text(int fd, int code, const char *msg)
{
    answer(fd, code, "text/plain; charset=utf-8", NULL, msg, strlen(msg));
}

/* gzip of n bytes, or NULL */
static uint8_t *gzip(const char *p, size_t n, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, n) + 64;
    uint8_t *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int zr = deflate(&z, Z_FINISH);
    *outlen = cap - z.avail_out;
    deflateEnd(&z);
    if (zr != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

/* value of key in query string q ("from=1&to=2"), copied into buf */
static int query_get(const char *q, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = q; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t l = amp ? (size_t)(amp - p) : strlen(p);
        if (l > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t vl = l - kl - 1;
            if (vl >= cap) return -1;
            memcpy(buf, p + kl + 1, vl);
            buf[vl] = 0;
            return 1;
        }
        p = amp ? amp + 1 : NULL;
    }
    return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (errno || e == s || *e) return -1;
    *out = v;
    return 0;
}

/* GET /TOKEN/data?from=NS&to=NS&ranks=A-B: the calls (on ranks A..B) and
 * messages (both ends in A..B) that overlap [from, to], times in ns since
 * the run's first call as in the page */
static void answer_data(int fd, const struct an_view_arrays *c, int nranks, const char *q, int gz)
{
    char b[64];
    int64_t from = INT64_MIN, to = INT64_MAX, ra = 0, rb = nranks - 1;
    if (query_get(q, "from", b, sizeof b) == 1 && parse_i64(b, &from) != 0) goto bad;
    if (query_get(q, "to", b, sizeof b) == 1 && parse_i64(b, &to) != 0) goto bad;
    if (query_get(q, "ranks", b, sizeof b) == 1) {
        char *dash = strchr(b + 1, '-');
        if (dash) *dash = 0;
        if (parse_i64(b, &ra) != 0 || (dash && parse_i64(dash + 1, &rb) != 0)) goto bad;
        if (!dash) rb = ra;
    }
    if (from > to || ra > rb || ra < 0) goto bad;
    char *body = NULL;
    size_t bl = 0;
    FILE *o = open_memstream(&body, &bl);
    if (!o) {
        answer_text(fd, 500, "out of memory\n");
        return;
    }
    fprintf(o, "{\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"ranks\":[%" PRId64 ",%" PRId64 "]", from, to, ra, rb);
    /* messages: a line from the send's start to the receive's completion */
    uint64_t nm = 0;
    fputs(",\"m\":[", o);
    for (uint64_t j = 0; j < c->nm; j++) {
        int64_t a = c->m_ts[j], e = a + c->m_lat[j];
        if (e < from || a > to || c->m_src[j] < ra || c->m_src[j] > rb || c->m_dst[j] < ra || c->m_dst[j] > rb)
            continue;
        fprintf(o, "%s[%d,%d,%" PRId64 ",%" PRId64 ",%" PRIu64 ",%d]", nm ? "," : "", c->m_src[j], c->m_dst[j], a,
                c->m_lat[j], c->m_bytes[j], c->m_tag[j]);
        nm++;
    }
    uint64_t nc = 0;
    fputs("],\"c\":[", o);
    for (uint64_t i = 0; i < c->nc; i++) {
        int64_t a = c->c_t0[i], e = a + c->c_dur[i];
        if (e < from || a > to || c->c_rank[i] < ra || c->c_rank[i] > rb) continue;
        fprintf(o, "%s[%d,%" PRId64 ",%" PRId64 ",%u,%u]", nc ? "," : "", c->c_rank[i], a, c->c_dur[i], c->c_name[i],
                c->c_kind[i]);
        nc++;
    }
    fprintf(o, "],\"messages\":%" PRIu64 ",\"calls\":%" PRIu64 "}\n", nm, nc);
    if (fclose(o) != 0) {
        free(body);
        answer_text(fd, 500, "out of memory\n");
        return;
    }
    size_t zl = 0;
    uint8_t *z = gz ? gzip(body, bl, &zl) : NULL;
    if (z) answer(fd, 200, "application/json", "gzip", z, zl);
    else answer(fd, 200, "application/json", NULL, body, bl);
    free(z);
    free(body);
    return;
bad:
    answer_text(fd, 400, "bad query: give from=NS&to=NS&ranks=A-B (ns since the run's first call)\n");
}

/* ---- the server ------------------------------------------------------------------ */

static volatile sig_atomic_t stop_now;
static void on_signal(int sig) { (void)sig; stop_now = 1; }

/* Reads one request's head (up to the blank line), 5 s at most. */
static int read_head(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, 5000);
        if (pr <= 0) return -1;
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        n += (size_t)r;
        buf[n] = 0;
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n")) return 0;
    }
    return -1;
}

static void handle(int fd, const char *token, const char *page, size_t plen, const struct an_view_arrays *c, int nranks)
{
    char req[16384];
    if (read_head(fd, req, sizeof req) != 0) return;
    char method[16], target[4096];
    if (sscanf(req, "%15s %4095s", method, target) != 2) {
        answer_text(fd, 400, "bad request\n");
        return;
    }
    if (strcmp(method, "GET") != 0) {
        answer_text(fd, 405, "only GET\n");
        return;
    }
    size_t tl = strlen(token);
    /* the token first, compared in constant time */
    int diff = target[0] != '/' || strlen(target) < tl + 1;
    for (size_t i = 0; !diff && i < tl; i++) diff |= target[1 + i] != token[i];
    if (diff || (target[1 + tl] != '/' && target[1 + tl] != 0)) {
        answer_text(fd, 403, "forbidden: the URL's token is wrong\n");
        return;
    }
    char *rest = target + 1 + tl;
    char *q = strchr(rest, '?');
    if (q) *q++ = 0;
    int gz = 0;
    for (char *h = strchr(req, '\n'); h; h = strchr(h + 1, '\n'))
        if (strncasecmp(h + 1, "accept-encoding:", 16) == 0) {
            char *eol = strchr(h + 1, '\n');
            char save = eol ? *eol : 0;
            if (eol) *eol = 0;
            gz = strstr(h + 17, "gzip") != NULL;
            if (eol) *eol = save;
        }
    if (strcmp(rest, "") == 0 || strcmp(rest, "/") == 0) {
        size_t zl = 0;
        uint8_t *z = gz ? gzip(page, plen, &zl) : NULL;
        if (z) answer(fd, 200, "text/html; charset=utf-8", "gzip", z, zl);
        else answer(fd, 200, "text/html; charset=utf-8", NULL, page, plen);
        free(z);
    } else if (strcmp(rest, "/data") == 0) {
        answer_data(fd, c, nranks, q ? q : "", gz);
    } else {
        answer_text(fd, 404, "not found: the page is at /TOKEN/, the data at /TOKEN/data?from=NS&to=NS&ranks=A-B\n");
    }
}

int view_serve(const char *dir, const char *page, size_t plen, const struct an_view *v, int nranks, int port)
{
    struct an_view_arrays c;
    memset(&c, 0, sizeof c);
    if (an_view_decode(v, &c) != 0) {
        fprintf(stderr, "mpilens view: out of memory decoding the run's data\n");
        an_view_arrays_free(&c);
        return 1;
    }
    uint8_t rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        fprintf(stderr, "mpilens view: cannot draw a random token: %s\n", strerror(errno));
        an_view_arrays_free(&c);
        return 1;
    }
    char token[33];
    for (int i = 0; i < 16; i++) snprintf(token + 2 * i, 3, "%02x", rnd[i]);
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    socklen_t sl = sizeof sa;
    if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 16) != 0 ||
        getsockname(ls, (struct sockaddr *)&sa, &sl) != 0) {
        fprintf(stderr, "mpilens view: cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
        if (ls >= 0) close(ls);
        an_view_arrays_free(&c);
        return 1;
    }
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_signal;   /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGINT, &act, NULL);
    sigaction(SIGTERM, &act, NULL);
    signal(SIGPIPE, SIG_IGN);
    printf("http://127.0.0.1:%d/%s/\n", ntohs(sa.sin_port), token);
    fflush(stdout);
    fprintf(stderr, "mpilens view: serving %s on 127.0.0.1 only; open the URL above; Ctrl+C stops\n", dir);
    while (!stop_now) {
        struct pollfd p = {ls, POLLIN, 0};
        int pr = poll(&p, 1, -1);
        if (pr < 0) {
            if (errno == EINTR) continue;
            break;
        }
        int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        /* a client that stops reading cannot hold the server */
        struct timeval tv = {30, 0};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        handle(fd, token, page, plen, &c, nranks);
        close(fd);
    }
    close(ls);
    an_view_arrays_free(&c);
    return 0;
}
