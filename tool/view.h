/*
 * view.h — between tool/view.c (the page) and tool/view_serve.c (the page
 * from a local web server).
 */
#ifndef MPILENS_VIEW_H
#define MPILENS_VIEW_H

#include <stddef.h>

#include <stdint.h>
#include <stdio.h>

struct an_run;
struct an_marks;

/* What the served page's window queries need of the run's first pass. */
struct view_served {
    int64_t origin;           /* aligned ns of the page's time 0 */
    int64_t reach;            /* the longest message or collective (ns): how far past a window to read */
    uint64_t cap;             /* the most calls + messages in one answer */
    struct an_marks *marks;   /* resume points of the overview's pass (NULL: none), owned */
};

/* Serves page (plen bytes) on 127.0.0.1 (port 0: any free port) until
 * SIGINT/SIGTERM, and each window's calls and messages read from the rank
 * files on demand; prints the URL on stdout.  Returns the exit status. */
int view_serve(const char *dir, const char *page, size_t plen, struct an_run *run, const struct view_served *sv,
               int port);

/* The columns of a view (analysis/viewdata.c), each preceded by its
 * length, deflated (raw): what the page decodes.  0 or -1 (memory). */
struct an_view;
int view_pack(const struct an_view *v, uint8_t **out, size_t *outlen, size_t *rawlen);

/* `"sites":[...],"types":[...]` of a view (its call sites and datatypes by name). */
void view_json_names(FILE *o, const struct an_view *v);

#endif
