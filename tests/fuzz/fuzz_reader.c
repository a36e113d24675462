/*
 * fuzz_reader.c — libFuzzer target: one input = one rank file.  It is
 * opened with the reader (format/reader.c), every accessor is called on it,
 * every event is read, and the analysis (analysis/: matching, clock repair,
 * profile, critical path, view columns, failure diagnosis) runs over it as a one-rank run.  Whatever the bytes, nothing may
 * crash, hang, leak or read out of bounds (AddressSanitizer watches).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iformat -Ianalysis \
 *         tests/fuzz/fuzz_reader.c format/reader.c analysis/\*.c -o fuzz_reader
 *   ./fuzz_reader -max_len=65536 tests/fuzz/corpus     (tests/fuzz/run_fuzz.sh does this)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "critpath.h"
#include "diag.h"
#include "reader.h"

static volatile uint64_t sink;

static void touch_file(struct mlr_file *f)
{
    const struct ml_header *h = mlr_header(f);
    for (const char *w = mlr_warnings(f); w && *w; w += strlen(w) + 1) sink += (unsigned char)w[0];
    sink += strlen(mlr_host(f)) + strlen(mlr_mpi_version(f)) + strlen(mlr_exe(f)) + (uint64_t)mlr_rank(f);
    for (unsigned i = 0; i < 70000; i += (i < 600 ? 1 : 997)) sink += strlen(mlr_routine_name(f, (uint16_t)i));
    sink += (uint64_t)mlr_routine_id(f, "MPI_Send");
    for (uint32_t s = 0; s < 70000; s += 7) sink += mlr_site_addr(f, s);
    for (uint32_t s = 0; s < 20000; s += (s < 64 ? 1 : 101)) {   /* call chains (mpilens run -k) */
        uint64_t a[ML_MAX_DEPTH + 1];
        unsigned n = mlr_site_chain(f, s, a, (s % 3) ? ML_MAX_DEPTH : 2);
        for (unsigned i = 0; i < n; i++) sink += a[i];
    }
    sink += mlr_chain_depth(f);
    for (unsigned i = 0; i < mlr_nmodules(f) && i < 2000; i++) sink += strlen(mlr_module(f, i)->path);
    for (unsigned c = 0; c < 300; c++) {
        const struct mlr_comm *cm = mlr_comm(f, (uint16_t)c);
        if (cm) sink += cm->size;
        for (int r = -2; r < 6; r++) sink += (uint64_t)mlr_world_rank(f, (uint16_t)c, r, r & 1);
        const struct mlr_type *t = mlr_type(f, (uint16_t)c);
        if (t) sink += strlen(t->name);
    }
    sink += (uint64_t)mlr_world_rank(f, 0xffff, 0, 0);
    for (unsigned i = 0; i < mlr_nthreads(f) + 2 && i < 300; i++) {
        struct ml_live l;
        if (mlr_live(f, i, &l) == 0) sink += l.calls;
    }
    sink += (uint64_t)mlr_ticks_to_ns(f, h->anchor0_ticks);
    struct mlr_iter *it = mlr_iter_new(f);
    struct mlr_event e;
    while (it && mlr_next(it, &e)) {
        sink += (uint64_t)e.start_ns + e.routine + e.ndone;
        for (uint32_t k = 0; k < e.ndone; k++) sink += e.done[k].request;
    }
    mlr_iter_free(it);
}

static void analyse(const char *path)
{
    struct an_run run;
    if (an_run_open(path, &run) == 0) {
        for (const char *p = an_run_problem(&run, NULL); p; p = an_run_problem(&run, p)) sink += strlen(p);
        for (unsigned i = 0; i < run.ncomms && i < 50; i++) {
            char b[160];
            an_comm_name(&run, i, b, sizeof b);
            sink += strlen(b);
        }
        struct an_profile *p = an_profile_new(&run);
        if (p) {
            struct an_sink s = an_profile_sink(p);
            struct an_result res;
            if (an_analyse(&run, &s, &s, 0, &res) == 0) sink += res.stats.messages + res.nfindings;
            an_result_free(&res);
            an_profile_finish(p, NULL);
            unsigned n;
            an_profile_sites(p, &n);
            sink += n;
            an_profile_free(p);
        }
        /* a second pass: the critical path and the view's columns, fed
         * together.  The view's page holds a count per world rank, so a
         * damaged header's world size (up to 2^24) makes it slow, not wrong:
         * above 65,536 ranks the pass is left out, or the fuzzer would run
         * a few inputs a second instead of thousands. */
        struct an_cp_opts o;
        an_cp_opts_default(&o);
        int small = run.size <= 65536;
        struct an_cp *cp = small ? an_cp_new(&run, &o) : NULL;
        struct an_view *v = small ? an_view_new(&run) : NULL;
        if (cp && v) {
            struct an_tee tee = {an_cp_sink(cp), an_view_sink(v)};
            struct an_sink s = an_tee_sink(&tee);
            struct an_result res;
            if (an_analyse(&run, &s, NULL, 0, &res) == 0) sink += res.stats.messages;
            an_result_free(&res);
            if (an_cp_finish(cp) == 0) {
                const struct an_cp_result *r = an_cp_result(cp);
                sink += (uint64_t)(uintptr_t)r;
            }
            if (an_view_finish(v, NULL) == 0) {
                for (int c = 0; c < AN_VIEW_NCOLS; c++) {
                    size_t len;
                    const uint8_t *col = an_view_column(v, c, &len);
                    if (col && len) sink += col[len - 1];
                }
                sink += an_view_counts(v)->calls;
                /* what the view wrote decodes: every message's calls exist */
                struct an_view_arrays a;
                if (an_view_decode(v, &a) != 0) abort();
                sink += a.nm;
                an_view_arrays_free(&a);
            }
        }
        if (cp) an_cp_free(cp);
        if (v) an_view_free(v);
    }
    an_run_close(&run);
    /* the failure diagnosis (no symboliser: frames by address) */
    struct an_diag d;
    if (an_diag_load(path, NULL, NULL, &d) == 0) {
        sink += d.nfailed + d.nvanished + d.norder + (uint64_t)d.first + d.nnofile;
        for (unsigned i = 0; i < d.n; i++) {
            const struct an_diag_rank *r = &d.ranks[i];
            sink += (uint64_t)r->t_fail + r->end + r->nthreads + strlen(r->host);
            if (r->rec.where) sink += strlen(r->rec.where);
            for (unsigned k = 0; k < r->rec.nframes; k++) sink += strlen(r->rec.frames[k]);
            for (unsigned k = 0; k < r->nthreads; k++) sink += strlen(r->threads[k].site) + (uint64_t)r->threads[k].start;
        }
        an_diag_free(&d);
    }
    int failed, *pids;
    unsigned npids;
    if (an_diag_status(path, &failed, &pids, &npids) == 0) {
        sink += (uint64_t)failed + npids;
        free(pids);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("rank", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct mlr_file *f;
    if (mlr_open(path, &f) == MLR_OK) {
        touch_file(f);
        mlr_close(f);
        analyse(path);
    }
    close(fd);
    return 0;
}
