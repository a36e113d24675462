/*
 * export.h — the formats of `mpilens export` (export.c is the verb).
 */
#ifndef ML_EXPORT_H
#define ML_EXPORT_H

#include "analysis.h"

/* OTF2 archive `out` (creates out.otf2, out.def and the folder out/ next to
 * them; refuses to overwrite).  0 or -1 (the reason is on stderr). */
int export_otf2(struct an_run *run, const char *out, int progress);

#endif
