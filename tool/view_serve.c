/*
 * view_serve.c — `mpilens view --serve DIR`: the page of `mpilens view` from
 * a web server on 127.0.0.1, for runs too big for one file.  A random token
 * (128 bits, getrandom) is the first part of every URL: GET /TOKEN/ is the
 * page (the run's overview: tool/view.c), GET /TOKEN/data?from=NS&to=NS
 * the calls and messages of that window in the page's own columns, read
 * from the rank files when asked (answer_data); a wrong token is 403, any
 * other path 404, any other method 405.  The run is analysed once at start
 * (clocks, repair, the overview); nothing per event is kept.  One request
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
#include "json_out.h"
#include "symbols.h"
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

/* GET /TOKEN/data?from=NS&to=NS: the calls, messages and collectives that
 * overlap [from, to] (ns since the page's time 0), read from the rank files
 * by one pass that stops past the window (an_replay), starting at the last
 * resume point of the overview's pass before the window (sv->marks; with
 * &replay=start, for the tests and bench/view_serve_bench: at the run's
 * start, which gives the same answer slower): one line of JSON (the window,
 * "over" when more than the cap of calls and messages overlap it: then
 * nothing else is sent, the page stays summarised; "read", the events the
 * pass read; the counts, call sites and datatypes of the columns), a
 * newline, then the columns of analysis/viewdata.c deflated (raw), as the
 * page holds them. */
static void answer_data(int fd, struct an_run *run, const struct view_served *sv, const char *q)
{
    char b[64];
    int64_t from = 0, to = 0;
    if (query_get(q, "from", b, sizeof b) != 1 || parse_i64(b, &from) != 0) goto bad;
    if (query_get(q, "to", b, sizeof b) != 1 || parse_i64(b, &to) != 0) goto bad;
    if (from > to) goto bad;
    int r = query_get(q, "replay", b, sizeof b);
    if (r < 0 || (r == 1 && strcmp(b, "start") != 0)) goto bad;
    const struct an_marks *marks = r == 1 ? NULL : sv->marks;
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    struct an_view *v = an_view_new(run);
    if (!v) goto oom;
    an_view_window(v, sv->origin, from, to, sv->cap);
    struct an_sink vs = an_view_sink(v);
    /* a message or collective overlapping the window is complete at most
     * `reach` after it; 1 ms more for the stream's order */
    int64_t until = an_wadd(an_wadd(sv->origin, to), an_wadd(sv->reach, 1000000));
    uint64_t nread = 0;
    if (an_replay(run, marks, &vs, an_wadd(sv->origin, from), until, an_view_over(v), &nread) != 0 ||
        an_view_finish(v, sym_stack) != 0) {
        an_view_free(v);
        goto oom;
    }
    int over = *an_view_over(v);
    uint8_t *packed = NULL;
    size_t plen = 0, raw = 0;
    if (!over && view_pack(v, &packed, &plen, &raw) != 0) {
        an_view_free(v);
        goto oom;
    }
    gettimeofday(&t1, NULL);
    const struct an_view_counts *c = an_view_counts(v);
    char *body = NULL;
    size_t bl = 0;
    FILE *o = open_memstream(&body, &bl);
    if (!o) {
        free(packed);
        an_view_free(v);
        goto oom;
    }
    fprintf(o, "{\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"over\":%s,\"cap\":%" PRIu64 ",\"ms\":%.1f,\"read\":%" PRIu64,
            from, to, over ? "true" : "false", sv->cap, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_usec - t0.tv_usec) / 1e3,
            nread);
    if (!over) {
        fprintf(o, ",\"calls\":%" PRIu64 ",\"messages\":%" PRIu64 ",\"colls\":%" PRIu64 ",\"packed\":%zu,",
                c->shown_calls, c->shown_messages, c->shown_colls, plen);
        view_json_names(o, v);
    }
    fputs("}\n", o);
    if (packed) fwrite(packed, 1, plen, o);
    free(packed);
    an_view_free(v);
    if (fclose(o) != 0) {
        free(body);
        goto oom;
    }
    answer(fd, 200, "application/octet-stream", NULL, body, bl);
    free(body);
    return;
oom:
    answer_text(fd, 500, "out of memory reading the window\n");
    return;
bad:
    answer_text(fd, 400, "bad query: give from=NS&to=NS (ns since the run's first call, from <= to)\n");
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

static void handle(int fd, const char *token, const char *page, size_t plen, struct an_run *run,
                   const struct view_served *sv)
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
        answer_data(fd, run, sv, q ? q : "");
    } else {
        answer_text(fd, 404, "not found: the page is at /TOKEN/, a window's data at /TOKEN/data?from=NS&to=NS\n");
    }
}

int view_serve(const char *dir, const char *page, size_t plen, struct an_run *run, const struct view_served *sv,
               int port)
{
    uint8_t rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        fprintf(stderr, "mpilens view: cannot draw a random token: %s\n", strerror(errno));
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
    size_t mb = 0;
    unsigned nm = an_marks_count(sv->marks, &mb);
    fprintf(stderr, "mpilens view: serving %s on 127.0.0.1 only (windows start from %u resume points, %.1f MiB); "
            "open the URL above; Ctrl+C stops\n", dir, nm, mb / 1048576.0);
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
        handle(fd, token, page, plen, run, sv);
        close(fd);
    }
    close(ls);
    return 0;
}
