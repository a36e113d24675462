/*
 * view.h — between tool/view.c (the page) and tool/view_serve.c (the page
 * from a local web server).
 */
#ifndef MPILENS_VIEW_H
#define MPILENS_VIEW_H

#include <stddef.h>

struct an_view;

/* Serves page (plen bytes) and window queries over v's data on 127.0.0.1
 * (port 0: any free port) until SIGINT/SIGTERM; prints the URL on stdout.
 * Returns the exit status. */
int view_serve(const char *dir, const char *page, size_t plen, const struct an_view *v, int nranks, int port);

#endif
