/*
 * test_align.c — clock alignment (analysis/align.c): interpolation between
 * the two samples, held outside them, one sample, unusable samples, repair
 * steps.  Built and run by tests/cases/report_clock.sh.
 */
#include <stdio.h>
#include <string.h>

#include "analysis.h"

static int failed;

#define ASSERT_EQ(a, b)                                                                          \
    do {                                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                                      \
        if (a_ != b_) {                                                                          \
            fprintf(stderr, "%s:%d: %s == %lld, want %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); \
            failed = 1;                                                                          \
        }                                                                                        \
    } while (0)

static struct ml_header hdr(int64_t m0, int64_t o0, int v0, int64_t m1, int64_t o1, int v1)
{
    struct ml_header h;
    memset(&h, 0, sizeof h);
    h.sync_init.mono_ns = m0;
    h.sync_init.offset_ns = o0;
    h.sync_init.valid = (uint32_t)v0;
    h.sync_final.mono_ns = m1;
    h.sync_final.offset_ns = o1;
    h.sync_final.valid = (uint32_t)v1;
    return h;
}

int main(void)
{
    struct an_clock c;
    /* two samples: offset 1000 at t=1e9, 2000 at t=2e9 (1 ppm drift) */
    struct ml_header h = hdr(1000000000, 1000, 1, 2000000000, 2000, 1);
    ASSERT_EQ(an_clock_init(&c, &h) == NULL, 1);
    ASSERT_EQ(c.samples, 2);
    ASSERT_EQ(an_clock_base(&c, 1000000000), 1000001000);
    ASSERT_EQ(an_clock_base(&c, 1500000000), 1500001500);   /* halfway: halfway offset */
    ASSERT_EQ(an_clock_base(&c, 2000000000), 2000002000);
    ASSERT_EQ(an_clock_base(&c, 500000000), 500001000);     /* before MPI_Init: held */
    ASSERT_EQ(an_clock_base(&c, 3000000000), 3000002000);   /* after MPI_Finalize: held */
    /* repairs: from their time on, whatever order they come in; a later
     * event already moved further keeps its move (no piling up) */
    ASSERT_EQ(an_clock_extra(&c, 1700000000), 0);
    an_clock_repair(&c, 1600000000, 50);
    an_clock_repair(&c, 1200000000, 7);       /* 1.6 s already moved 50 */
    ASSERT_EQ(an_clock_extra(&c, 1600000000), 50);
    an_clock_repair(&c, 1600000000, 3);       /* the same event: 3 more */
    ASSERT_EQ(an_clock_extra(&c, 1100000000), 0);
    ASSERT_EQ(an_clock_extra(&c, 1200000000), 7);
    ASSERT_EQ(an_clock_extra(&c, 1599999999), 7);
    ASSERT_EQ(an_clock_extra(&c, 1600000000), 53);
    ASSERT_EQ(an_clock_extra(&c, 9000000000), 53);
    ASSERT_EQ(an_clock_max_extra(&c), 53);
    ASSERT_EQ(an_clock_repair(&c, 1300000000, 0), 0);        /* nothing to do */
    ASSERT_EQ(an_clock_extra(&c, 1300000000), 7);
    an_clock_repair(&c, 1400000000, 60);      /* 7 + 60 = 67: carries past 1.6 s */
    ASSERT_EQ(an_clock_extra(&c, 1399999999), 7);
    ASSERT_EQ(an_clock_extra(&c, 1400000000), 67);
    ASSERT_EQ(an_clock_extra(&c, 1600000000), 67);
    ASSERT_EQ(an_clock_max_extra(&c), 67);
    an_clock_free(&c);

    /* died before MPI_Finalize: one sample, constant offset */
    h = hdr(1000000000, -500, 1, 0, 0, 0);
    ASSERT_EQ(an_clock_init(&c, &h) == NULL, 1);
    ASSERT_EQ(c.samples, 1);
    ASSERT_EQ(an_clock_base(&c, 5000000000), 4999999500);
    an_clock_free(&c);

    /* no sample at all (rank 0 of a one-node run has offset 0 anyway) */
    h = hdr(0, 0, 0, 0, 0, 0);
    an_clock_init(&c, &h);
    ASSERT_EQ(c.samples, 0);
    ASSERT_EQ(an_clock_base(&c, 123), 123);
    an_clock_free(&c);

    /* samples that disagree beyond any real drift: the second is ignored */
    h = hdr(1000000000, 0, 1, 1000001000, 1000000, 1);
    ASSERT_EQ(an_clock_init(&c, &h) != NULL, 1);
    ASSERT_EQ(c.samples, 1);
    ASSERT_EQ(an_clock_base(&c, 1000000500), 1000000500);
    an_clock_free(&c);

    /* garbage offsets are not used */
    h = hdr(1000000000, (int64_t)1 << 62, 1, 2000000000, 10, 1);
    ASSERT_EQ(an_clock_init(&c, &h) != NULL, 1);
    ASSERT_EQ(c.samples, 1);
    ASSERT_EQ(an_clock_base(&c, 100), 110);
    an_clock_free(&c);

    /* the MPI_Finalize sample taken before the MPI_Init one: only the first */
    h = hdr(2000000000, 5, 1, 1000000000, 9, 1);
    an_clock_init(&c, &h);
    ASSERT_EQ(c.samples, 1);
    ASSERT_EQ(an_clock_base(&c, 0), 5);
    an_clock_free(&c);

    /* roles */
    ASSERT_EQ(an_role_of("MPI_Send"), AN_SEND);
    ASSERT_EQ(an_role_of("MPI_Send_c"), AN_SEND);
    ASSERT_EQ(an_role_of("MPI_SEND"), AN_SEND);
    ASSERT_EQ(an_role_of("MPI_Send_init"), AN_SEND_INIT);
    ASSERT_EQ(an_role_of("MPI_Sendrecv_replace"), AN_SENDRECV);
    ASSERT_EQ(an_role_of("MPI_Irecv"), AN_IRECV);
    ASSERT_EQ(an_role_of("MPI_Improbe"), AN_IMPROBE);
    ASSERT_EQ(an_role_of("MPI_Iprobe"), AN_PROBE);
    ASSERT_EQ(an_role_of("MPI_Isendrecv_replace"), AN_ISENDRECV);
    ASSERT_EQ(an_role_of("MPI_Mprobe"), AN_MPROBE);
    ASSERT_EQ(an_role_of("MPI_Startall"), AN_START);
    ASSERT_EQ(an_role_of("MPI_Sendx"), AN_OTHER);
    ASSERT_EQ(an_role_of("MPI_Allreduce"), AN_OTHER);

    if (failed) return 1;
    printf("ok align: interpolation, one sample, bad samples, repair steps, roles\n");
    return 0;
}
