/*
 * common.c — small things several verbs need.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "json_out.h"

const char *tool_peer_name(const struct mlr_file *f, int32_t peer)
{
    int mpich = strncmp(mlr_header(f)->mpi_impl, "mpich", 5) == 0;
    if (peer == ML_PEER_NONE) return "";
    if (peer == (mpich ? -2 : -1)) return "ANY_SOURCE";
    if (peer == (mpich ? -1 : -2)) return "PROC_NULL";
    if (peer == (mpich ? -3 : -4)) return "ROOT";
    return NULL;
}

int64_t tool_aligned_ns(const struct mlr_file *f, int64_t local_ns)
{
    const struct ml_header *h = mlr_header(f);
    if (h->sync_init.valid) return local_ns + h->sync_init.offset_ns;
    return local_ns;
}

/* DIR/deadlock.txt, written by the live monitor (tool/live.c write_verdict):
 * a first line "mpilens deadlock verdict for DIR at TIME", then the verdict.
 * The file is untrusted like any input: at most 64 KiB are read, and bytes
 * other than printable ASCII, UTF-8, tab and newline become '?'. */
char *tool_deadlock_verdict(const char *dir, char *when, size_t when_len)
{
    char path[4096];
    if (when_len) when[0] = 0;
    if (snprintf(path, sizeof path, "%s/deadlock.txt", dir) >= (int)sizeof path) return NULL;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    enum { MAX = 64 * 1024 };
    char *buf = malloc(MAX + 2);
    size_t n = buf ? fread(buf, 1, MAX, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    if (n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0 || (c < 32 && c != '\n' && c != '\t') || c == 127) buf[i] = '?';
    }
    char *body = buf;
    static const char head[] = "mpilens deadlock verdict for ";
    if (strncmp(buf, head, sizeof head - 1) == 0) {
        char *nl = strchr(buf, '\n');
        char *end = nl ? nl : buf + n;
        /* the time stamp: after the last " at " of the first line */
        char *at = NULL;
        for (char *p = buf; p + 4 <= end; p++)
            if (memcmp(p, " at ", 4) == 0) at = p + 4;
        if (at && when_len) {
            size_t l = (size_t)(end - at);
            if (l >= when_len) l = when_len - 1;
            memcpy(when, at, l);
            when[l] = 0;
        }
        body = nl ? nl + 1 : buf + n;
    }
    size_t bl = strlen(body);
    while (bl && (body[bl - 1] == '\n' || body[bl - 1] == ' ')) body[--bl] = 0;
    if (bl == 0) {
        free(buf);
        return NULL;
    }
    memmove(buf, body, bl + 1);
    return buf;
}

void tool_deadlock_json(FILE *o, const char *dir, int skip)
{
    char when[64];
    char *v = skip ? NULL : tool_deadlock_verdict(dir, when, sizeof when);
    fprintf(o, "  \"deadlock\": ");
    if (!v) {
        fprintf(o, "null,\n");
        return;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/deadlock.txt", dir);
    fprintf(o, "{\"file\": ");
    json_str(o, path);
    fprintf(o, ", \"written\": ");
    json_str(o, when);
    fprintf(o, ", \"text\": ");
    json_str(o, v);
    fprintf(o, "},\n");
    free(v);
}

/* getopt_long's complaint, in mpilens's words (opterr = 0 before the loop):
 * one line prefixed "mpilens VERB:", with a hint. */
void tool_bad_option(const char *verb, int argc, char **argv)
{
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (optopt > ' ' && optopt < 127 && (arg[0] != '-' || arg[1] == '-' || !strchr(arg + 1, optopt)))
        fprintf(stderr, "mpilens %s: unknown option '-%c'; try 'mpilens %s --help'\n", verb, optopt, verb);
    else
        fprintf(stderr, "mpilens %s: unknown option, or one missing its value: '%s'; try 'mpilens %s --help'\n",
                verb, arg, verb);
}
