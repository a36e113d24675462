/*
 * engine.c — main of mpilens-mpi-<impl>, the mpilens command as an MPI job
 * of its own: `mpirun -n P mpilens report DIR` starts P copies of mpilens,
 * which exec this binary (tool/mpilens.c, tool_dispatch_mpi); here MPI is
 * started, the exchange over MPI_COMM_WORLD becomes tool_xch, and the verb
 * runs as it would in the mpilens binary.  The verbs see the number of
 * processes in tool_xch and split their work (docs/PARALLEL.md).
 *
 * The analysis is never recorded: a libmpilens runtime preloaded into this
 * process is taken out of LD_PRELOAD and the process starts again before
 * MPI_Init, with MPILENS_DISABLE set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exchange.h"
#include "tool.h"

struct an_xch *an_xch_mpi(int *argc, char ***argv);
void an_xch_mpi_end(struct an_xch *x);

#ifndef ML_NO_OTF2
/* `mpilens export --format=otf2` as a job: each process writes the
 * locations of its ranks; OTF2 coordinates the archive over MPI_COMM_WORLD */
#include <otf2/otf2.h>
#include <otf2/OTF2_MPI_Collectives.h>

static int otf2_parallel(void *archive)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL) == OTF2_SUCCESS ? 0 : -1;
}
#endif

int main(int argc, char **argv)
{
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "libmpilens")) {
        tool_strip_preload();
        execv("/proc/self/exe", argv);
        perror("mpilens: exec /proc/self/exe");
        return 1;
    }
    setenv("MPILENS_DISABLE", "1", 1);
    struct an_xch *x = an_xch_mpi(&argc, &argv);
    if (!x) {
        fprintf(stderr, "mpilens: MPI_Init failed in the parallel analysis\n");
        return 1;
    }
    tool_xch = x;
#ifndef ML_NO_OTF2
    tool_otf2_parallel = otf2_parallel;
#endif
    int rc = mpilens_main(argc, argv);
    int64_t worst = rc;
    x->reduce_i64(x, &worst, 1, AN_XCH_MAX);   /* every process ends with the job's status */
    if (getenv("MPILENS_XCH_STATS")) {         /* bench/report_bench: this process's share */
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr,
                "mpilens-mpi: process %d of %d sent %llu bytes; cpu %.2f s, peak RSS %.1f MiB; "
                "%llu batches, at most %llu crossing sends held; %.2f s of cpu in the exchange; "
                "at most %llu collective instances held\n",
                x->rank, x->size, (unsigned long long)x->bytes,
                (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
                ru.ru_maxrss / 1024.0, (unsigned long long)x->batches, (unsigned long long)x->batch_held,
                x->xch_cpu, (unsigned long long)x->coll_held);
    }
    fflush(stdout);
    an_xch_mpi_end(x);
    return (int)worst;
}
