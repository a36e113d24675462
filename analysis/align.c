/*
 * align.c — one rank's clock mapped onto rank 0's (analysis.h, "clocks").
 *
 * The runtime measures each node's offset to rank 0 twice: at MPI_Init and
 * at MPI_Finalize (minimum-round-trip ping-pong).  Between the two samples
 * the offset is interpolated linearly (clock drift), outside them it is held
 * at the nearer sample; with one sample (the run died before MPI_Finalize)
 * it is constant.
 *
 * What interpolation leaves wrong — a receive that appears to end before
 * its send began — is repaired by steps: from the receive on, every event
 * of the receiving rank moves later by the amount missing, except events a
 * later repair already moved as far or further (they keep their move: the
 * extra is the smallest nondecreasing one that every message asks for, so
 * a repair found in a later pass does not pile onto later ones).  Steps
 * only ever add, so the order of a rank's own events is kept.
 */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

/* An offset beyond this is not a clock difference but garbage (2^62 ns is
 * 146 years). */
#define OFFSET_MAX (1ll << 62)
/* Drift beyond 1000 ppm is no real oscillator: the sample is wrong. */
#define SLOPE_MAX 1e-3
#define STEPS_MAX (1u << 22)

const char *an_clock_init(struct an_clock *c, const struct ml_header *h)
{
    memset(c, 0, sizeof *c);
    const struct ml_clock_sync *a = &h->sync_init, *b = &h->sync_final;
    int a_ok = a->valid == 1 && a->offset_ns > -OFFSET_MAX && a->offset_ns < OFFSET_MAX;
    int b_ok = b->valid == 1 && b->offset_ns > -OFFSET_MAX && b->offset_ns < OFFSET_MAX;
    const char *why = NULL;
    if (a->valid && !a_ok) why = "clock sample at MPI_Init is invalid; ignored";
    if (b->valid && !b_ok) why = "clock sample at MPI_Finalize is invalid; ignored";
    if (a_ok) {
        c->samples = 1;
        c->t0 = c->t1 = a->mono_ns;
        c->off0 = c->off1 = a->offset_ns;
    } else if (b_ok) {
        c->samples = 1;
        c->t0 = c->t1 = b->mono_ns;
        c->off0 = c->off1 = b->offset_ns;
        return why;
    } else {
        return why;
    }
    if (b_ok && b->mono_ns > a->mono_ns) {
        double slope = (double)(b->offset_ns - a->offset_ns) / ((double)b->mono_ns - (double)a->mono_ns);
        if (slope > SLOPE_MAX || slope < -SLOPE_MAX)
            return "clock samples at MPI_Init and MPI_Finalize disagree by more than 1000 ppm; "
                   "the MPI_Finalize sample is ignored";
        c->samples = 2;
        c->t1 = b->mono_ns;
        c->off1 = b->offset_ns;
        c->slope = slope;
    }
    return why;
}

void an_clock_free(struct an_clock *c)
{
    free(c->steps);
    c->steps = NULL;
    c->nsteps = c->cap = 0;
}

/* Index of the last step at or before t, or -1. */
static long step_at(const struct an_clock *c, int64_t t)
{
    long lo = 0, hi = (long)c->nsteps - 1, ans = -1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (c->steps[mid].t <= t) {
            ans = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return ans;
}

int64_t an_clock_extra(const struct an_clock *c, int64_t t)
{
    if (c->nsteps == 0) return 0;
    long i = step_at(c, t);
    return i < 0 ? 0 : c->steps[i].extra;
}

int an_clock_repair(struct an_clock *c, int64_t t, int64_t inc)
{
    if (inc <= 0) return 0;
    long i = step_at(c, t);
    int64_t v = an_sadd(i >= 0 ? c->steps[i].extra : 0, inc);   /* the extra from t on */
    unsigned at;
    if (i >= 0 && c->steps[i].t == t) {
        at = (unsigned)i;
    } else {
        if (c->nsteps >= STEPS_MAX) return -1;
        if (c->nsteps == c->cap) {
            unsigned cap = c->cap ? c->cap * 2 : 16;
            struct an_step *s = realloc(c->steps, cap * sizeof *s);
            if (!s) return -1;
            c->steps = s;
            c->cap = cap;
        }
        at = (unsigned)(i + 1);
        memmove(c->steps + at + 1, c->steps + at, (c->nsteps - at) * sizeof *c->steps);
        c->steps[at].t = t;
        c->nsteps++;
    }
    c->steps[at].extra = v;
    /* later events that a later receive already moved as far or further keep
     * their move: what they needed does not grow because this one moved
     * (adding inc to them too would move them more than any message asks) */
    for (unsigned k = at + 1; k < c->nsteps && c->steps[k].extra < v; k++) c->steps[k].extra = v;
    return 0;
}

int64_t an_clock_max_extra(const struct an_clock *c)
{
    return c->nsteps ? c->steps[c->nsteps - 1].extra : 0;
}
