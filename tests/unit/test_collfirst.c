/*
 * test_collfirst.c — who a collective instance is named after
 * (analysis/match.c an_coll_arrive): for random arrivals (starts, ranks,
 * routines, often equal), the same earliest member and earliest member of
 * another routine as a brute-force search, whatever order the arrivals
 * come in, and when they are split over slices whose two members are then
 * merged (an_slice_report's way).  Built and run by
 * tests/cases/report_collfirst.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

struct arr {
    int64_t t0;
    int32_t rank;
    uint16_t name;
    uint32_t site;
};

static int before(const struct arr *a, int64_t t0, int32_t rank)
{
    return a->t0 < t0 || (a->t0 == t0 && a->rank < rank);
}

/* the expected pair, by search */
static void brute(const struct arr *v, int n, struct an_coll_first *x)
{
    int a = 0, b = -1;
    for (int i = 1; i < n; i++)
        if (before(&v[i], v[a].t0, v[a].rank)) a = i;
    for (int i = 0; i < n; i++)
        if (v[i].name != v[a].name && (b < 0 || before(&v[i], v[b].t0, v[b].rank))) b = i;
    memset(x, 0, sizeof *x);
    x->t0 = v[a].t0;
    x->rank = v[a].rank;
    x->name = v[a].name;
    x->site = v[a].site;
    x->rankb = b < 0 ? -1 : v[b].rank;
    if (b >= 0) {
        x->t0b = v[b].t0;
        x->nameb = v[b].name;
        x->siteb = v[b].site;
    }
}

static int same(const struct an_coll_first *x, const struct an_coll_first *y)
{
    if (x->t0 != y->t0 || x->rank != y->rank || x->name != y->name || x->site != y->site || x->rankb != y->rankb)
        return 0;
    return x->rankb < 0 || (x->t0b == y->t0b && x->nameb == y->nameb && x->siteb == y->siteb);
}

int main(void)
{
    srand(12345);
    int failed = 0;
    for (int trial = 0; trial < 20000 && !failed; trial++) {
        int n = 1 + rand() % 12;
        struct arr v[12];
        int perm[12];
        for (int i = 0; i < n; i++) {
            v[i].t0 = rand() % 4;            /* equal starts: the rank decides */
            v[i].rank = i;
            v[i].name = (uint16_t)(rand() % 3);
            v[i].site = (uint32_t)(100 + i);
            perm[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {   /* any order of arrival */
            int j = rand() % (i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        struct an_coll_first want, one, merged;
        brute(v, n, &want);
        for (int i = 0; i < n; i++) {
            const struct arr *a = &v[perm[i]];
            an_coll_arrive(&one, i == 0, a->t0, a->rank, a->name, a->site);
        }
        /* slices: contiguous pieces of the arrival order, each summed apart */
        int nsl = 1 + rand() % n, k = 0, got = 0;
        for (int s = 0; s < nsl; s++) {
            int len = s == nsl - 1 ? n - k : (n - k) / (nsl - s);
            if (len <= 0) continue;
            struct an_coll_first part;
            for (int i = 0; i < len; i++) {
                const struct arr *a = &v[perm[k + i]];
                an_coll_arrive(&part, i == 0, a->t0, a->rank, a->name, a->site);
            }
            k += len;
            an_coll_arrive(&merged, !got, part.t0, part.rank, part.name, part.site);
            got = 1;
            if (part.rankb >= 0) an_coll_arrive(&merged, 0, part.t0b, part.rankb, part.nameb, part.siteb);
        }
        if (!same(&one, &want) || !same(&merged, &want)) {
            fprintf(stderr, "trial %d (%d arrivals, %d slices): want rank %d / %d, one by one %d / %d, merged %d / %d\n",
                    trial, n, nsl, want.rank, want.rankb, one.rank, one.rankb, merged.rank, merged.rankb);
            failed = 1;
        }
    }
    if (!failed) printf("an_coll_arrive: 20000 instances, in any order and in slices, as searched\n");
    return failed;
}
