/*
 * cp_analytic.c — programs whose critical path is known, for
 * tests/cases/report_critpath.sh.  `cp_analytic MODE`; computation is a
 * timed spin on CLOCK_MONOTONIC (no MPI call inside, so nothing is
 * recorded), and every rank prints what it measured itself:
 *   CP rank=R spin_ns=S mpi_ns=M other_ns=O iters=S0,...,S7
 * S: the time between its MPI calls that it spent spinning (all spins),
 * M: the time it spent inside MPI calls (all calls between MPI_Init and
 * MPI_Finalize, as seen from the program), O: the rest of its time outside
 * MPI calls (a few us between calls; more where a loaded machine preempts
 * the rank there: computation too), Sk: allreduce's spin in
 * iteration k.  MPI_Pcontrol(1) after MPI_Init and
 * MPI_Pcontrol(0) before MPI_Finalize bound the window.  The test derives the expected
 * values from these lines with the formulas below (D = 10 ms).
 *
 * pipeline (4 ranks): Barrier; rank r > 0 receives from r-1; spins
 *   (r+1)·D; rank r < P-1 sends (r+1)·1000 bytes to r+1.  Rank r+1 posts its
 *   receive at once and waits for rank r: the path hops 0 > 1 > 2 > 3 at every
 *   message.  Computation on it: Σ_r (r+1)·D = 10·D (plus the few µs between
 *   calls); bytes on it: 1000+2000+3000 = 6000 exactly; latency cost:
 *   Barrier ⌈log₂4⌉·α + 3 messages·α = 5α; bandwidth cost: 6000·β.
 *   Late-sender wait of rank r >= Σ_{j<r} (j+1)·D (it waited for that much
 *   spinning), <= its time in MPI.
 * switch (4 ranks): rank 1 spins 4·D, Allreduce (8 bytes); rank 2 spins
 *   6·D, Barrier.  The path: rank 1's spin, the Allreduce, rank 2's spin,
 *   the Barrier: computation on it 10·D.  Collective wait of every rank but
 *   1 >= 4·D; of every rank but 2 >= 6·D.
 * allreduce (4 ranks): 8 iterations; in iteration k rank k mod 4 spins 3·D,
 *   the others D; Allreduce of 8 bytes.  Computation on the path 8·3·D =
 *   24·D (with a loaded machine stretching spins: Σ_k max_r S_k of rank r,
 *   since every Allreduce joins all chains); per process: 2·3·D + 6·D = 12·D on every rank (volumetric the
 *   same); bytes on the path 8·8 = 64; latency cost 8·⌈log₂4⌉·α = 16α;
 *   bandwidth cost 8·⌈log₂4⌉·8·β = 128β.  Collective wait of each rank
 *   >= 6·2·D.
 * overlap (2 ranks): Barrier; rank 0 Isend 4000 bytes, rank 1 Irecv; both spin 3·D
 *   (rank 1 4·D), Wait; Barrier.  The spin is computation on the path
 *   (4·D), not communication: communication on the run-time path is at most
 *   the MPI time the ranks measured.
 * ssend (2 ranks): rank 0 MPI_Ssend 100 bytes at once, then spins 2·D;
 *   rank 1 spins 3·D, then receives.  Late receiver: rank 0 waits >= 3·D in
 *   MPI_Ssend; the path: rank 1's spin, the receive, rank 0's spin: 5·D of
 *   computation, ending on rank 0.
 * wildcard (3 ranks): Barrier; rank 0 receives twice from MPI_ANY_SOURCE, then spins
 *   D; rank 1 spins 2·D and sends 10 bytes, rank 2 spins 4·D and sends 20.
 *   Path: rank 2's spin, its message, rank 0's spin: 5·D; bytes on it 20
 *   (on a loaded machine: the longer of the two senders' spins, and rank 0's).
 * procnull (4 ranks): Barrier; rank r spins (r+1)·D; Sendrecv to the right from the
 *   left (MPI_PROC_NULL at the ends), then to the left from the right, N =
 *   512 bytes each.  Bytes on the path 2N = 1024, per process 2N (ranks 1
 *   and 2), volumetric 2N·3/4 = 768; the path: rank 3's spin (4·D) then the
 *   exchanges: computation on it 4·D.
 * iallreduce (3 ranks): Barrier; rank 2 spins 10·D, then every rank calls
 *   MPI_Iallreduce (8 bytes); ranks 0 and 1 spin 2·D and MPI_Wait, rank 2
 *   waits at once.  The Wait of ranks 0 and 1 completes an Allreduce that
 *   needs rank 2: it waits from its start until rank 2's MPI_Iallreduce
 *   began, a collective wait at the MPI_Wait site, peer 2, of
 *   nb_ia(2) - nb_wait(r) (the times each rank took just before those calls,
 *   CLOCK_MONOTONIC, printed as nb=IA,WAIT; one host); rank 2 does not wait
 *   in its MPI_Wait.  The run-time path goes through rank 2's spin:
 *   computation on it 10·D; bytes on it 8 (one Iallreduce on every chain),
 *   latency cost Barrier ⌈log₂3⌉·α + Iallreduce ⌈log₂3⌉·α = 4α.
 * probe (3 ranks): Barrier; rank 0 spins 3·D, then sends 100 bytes (tag 7)
 *   to rank 1; rank 1 calls MPI_Probe(0, 7) at once, then MPI_Recv; rank 2
 *   does nothing.  The probe waits for the send like a receive: a late-sender
 *   wait of rank 1 at MPI_Probe, peer 0, of nb_ia(0) - nb_wait(1) (rank 0's
 *   mark just before MPI_Send, rank 1's just before MPI_Probe: ~3·D); the
 *   MPI_Recv after it waits for nothing.  The run-time path: rank 0's spin,
 *   the message, rank 1 (the path ends [0, 1], leaving rank 0 by
 *   "MPI_Send -> rank 1 MPI_Probe"): computation on it 3·D; rank 1's path
 *   time is only its calls after the send began (< 1% of the path).
 * iprobe (3 ranks): the same with a loop of MPI_Iprobe(0, 7) until one finds
 *   the message, then MPI_Recv.  The polls before the send began wait for it:
 *   late-sender wait of rank 1 at MPI_Iprobe, peer 0; the polls are a
 *   record and a repeat count holding their time inside MPI, under 5 us
 *   apart on average (a tight loop): all the loop's time is waiting, as for
 *   probe, nb_ia(0) - nb_wait(1), and the path is as for probe (hop "MPI_Send -> rank 1
 *   MPI_Iprobe"), computation on it 3·D plus at most rank 1's time between
 *   polls after the send began.
 * improbe (3 ranks): as iprobe with a loop of MPI_Improbe(0, 7) until one
 *   finds the message (and takes it: MPI_Mrecv then only fetches it).  The
 *   polls that found nothing wait for the send as iprobe's do: late-sender
 *   wait of rank 1 at MPI_Improbe, peer 0, nb_ia(0) - nb_wait(1), the path
 *   as for probe (hop "MPI_Send -> rank 1 MPI_Improbe"), computation on it
 *   3·D.
 * testloop (3 ranks): Barrier; rank 0 spins 3·D, then sends 100 bytes (tag
 *   7) to rank 1; rank 1 posts MPI_Irecv at once and calls MPI_Test on it
 *   until it completes.  The unsuccessful tests wait for the send as
 *   MPI_Wait would: a completion wait of rank 1 at MPI_Test, peer 0, of
 *   nb_ia(0) - nb_wait(1); the path as for probe (hop "MPI_Send -> rank 1
 *   MPI_Test"), computation on it 3·D.
 * issend (2 ranks): Barrier; rank 0 MPI_Issend 100 bytes (tag 8) to rank 1
 *   and MPI_Wait at once, then spins 2·D; rank 1 spins 3·D, then MPI_Recv.
 *   A synchronous send completes only once its receive is posted: the
 *   MPI_Wait waits for rank 1 as an MPI_Ssend would.  Late receiver: rank 0
 *   at MPI_Wait, peer 1, nb_ia(1) - nb_wait(0) (rank 1's mark just before
 *   MPI_Recv, rank 0's just before MPI_Wait: ~3·D), no other wait.  The
 *   path: rank 1's spin, the receive, the hop "MPI_Recv -> rank 0
 *   MPI_Wait", rank 0's spin: computation on it 3·D + 2·D = 5·D, ending on
 *   rank 0; its communication is MPI time the ranks measured that is not
 *   that waiting (a few us of calls).
 * pssend (2 ranks): the same with MPI_Ssend_init (before the Barrier),
 *   MPI_Start and MPI_Wait (MPI_Request_free after the spin): the same
 *   late-receiver wait at MPI_Wait, the same path, 5·D of computation.
 * issendall (3 ranks): Barrier; rank 0 MPI_Issend 100 bytes (tag 8) to
 *   rank 1 and to rank 2, MPI_Waitall on both, then spins 2·D; rank 1
 *   receives at once, rank 2 spins 3·D, then receives.  The Waitall waits
 *   for the later receiver: late receiver of rank 0 at MPI_Waitall, peer 2,
 *   nb_ia(2) - nb_wait(0) (rank 1's receive began before, or within
 *   microseconds of, the Waitall: no wait over 50 us for it); path: rank
 *   2's spin, "MPI_Recv -> rank 0 MPI_Waitall", rank 0's spin: 5·D of
 *   computation.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cputil.h"

#define D_NS 10000000ll

static int64_t iter_spin[8];   /* allreduce: the spin of each iteration */
static int64_t nb_ia, nb_wait; /* iallreduce: just before MPI_Iallreduce and MPI_Wait */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "pipeline";
    /* the window: what the runtime does around MPI_Init stays out.  The
     * rank's own bracket encloses both MPI_Pcontrol calls: the report's
     * window runs from inside the first to inside the second, so a rank
     * preempted between a Pcontrol's recorded time and its own clock read
     * (CI at load 9: 4.5 ms) is still inside other_ns, the allowance */
    int64_t win0 = now();
    MPI_Pcontrol(1);
    M(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    M(MPI_Comm_size(MPI_COMM_WORLD, &size));
    static char buf[8192], buf2[8192];
    if (strcmp(mode, "pipeline") == 0) {
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank > 0) M(MPI_Recv(buf, (int)sizeof buf, MPI_BYTE, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        spin((rank + 1) * D_NS);
        if (rank < size - 1) M(MPI_Send(buf, (rank + 1) * 1000, MPI_BYTE, rank + 1, 1, MPI_COMM_WORLD));
    } else if (strcmp(mode, "switch") == 0) {
        double x = rank, y;
        if (rank == 1) spin(4 * D_NS);
        M(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        if (rank == 2) spin(6 * D_NS);
        M(MPI_Barrier(MPI_COMM_WORLD));
    } else if (strcmp(mode, "allreduce") == 0) {
        for (int k = 0; k < 8; k++) {
            double x = k, y;
            int64_t before = spin_total;
            spin(k % size == rank ? 3 * D_NS : D_NS);
            iter_spin[k] = spin_total - before;
            M(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        }
    } else if (strcmp(mode, "overlap") == 0) {
        MPI_Request rq;
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) M(MPI_Isend(buf, 4000, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &rq));
        else M(MPI_Irecv(buf, 4000, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq));
        spin(rank == 0 ? 3 * D_NS : 4 * D_NS);
        M(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        M(MPI_Barrier(MPI_COMM_WORLD));
    } else if (strcmp(mode, "ssend") == 0) {
        if (rank == 0) {
            M(MPI_Ssend(buf, 100, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
            spin(2 * D_NS);
        } else {
            spin(3 * D_NS);
            M(MPI_Recv(buf, 100, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else if (strcmp(mode, "wildcard") == 0) {
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            for (int i = 0; i < 2; i++)
                M(MPI_Recv(buf, (int)sizeof buf, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
            spin(D_NS);
        } else {
            spin(rank == 1 ? 2 * D_NS : 4 * D_NS);
            M(MPI_Send(buf, rank * 10, MPI_BYTE, 0, rank, MPI_COMM_WORLD));
        }
    } else if (strcmp(mode, "procnull") == 0) {
        int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
        M(MPI_Barrier(MPI_COMM_WORLD));
        spin((rank + 1) * D_NS);
        M(MPI_Sendrecv(buf, 512, MPI_BYTE, right, 5, buf2, 512, MPI_BYTE, left, 5, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
        M(MPI_Sendrecv(buf, 512, MPI_BYTE, left, 6, buf2, 512, MPI_BYTE, right, 6, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    } else if (strcmp(mode, "iallreduce") == 0) {
        double x = rank, y;
        MPI_Request rq;
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 2) spin(10 * D_NS);
        nb_ia = now();
        M(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq));
        if (rank != 2) spin(2 * D_NS);
        nb_wait = now();
        M(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else if (strcmp(mode, "probe") == 0 || strcmp(mode, "iprobe") == 0 || strcmp(mode, "improbe") == 0) {
        MPI_Status st;
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            spin(3 * D_NS);
            nb_ia = now();
            M(MPI_Send(buf, 100, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
        } else if (rank == 1) {
            nb_wait = now();
            if (mode[0] == 'p') {
                M(MPI_Probe(0, 7, MPI_COMM_WORLD, &st));
            } else if (mode[1] == 'm') {
                int flag = 0;
                MPI_Message msg;
                while (!flag) M(MPI_Improbe(0, 7, MPI_COMM_WORLD, &flag, &msg, &st));
                M(MPI_Mrecv(buf, 100, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
            } else {
                int flag = 0;
                while (!flag) M(MPI_Iprobe(0, 7, MPI_COMM_WORLD, &flag, &st));
            }
            if (mode[1] != 'm') M(MPI_Recv(buf, 100, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else if (strcmp(mode, "testloop") == 0) {
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            spin(3 * D_NS);
            nb_ia = now();
            M(MPI_Send(buf, 100, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
        } else if (rank == 1) {
            MPI_Request rq;
            int flag = 0;
            M(MPI_Irecv(buf, 100, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq));
            nb_wait = now();
            while (!flag) M(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
        }
    } else if (strcmp(mode, "issend") == 0 || strcmp(mode, "pssend") == 0) {
        MPI_Request rq;
        int pers = mode[0] == 'p';
        if (rank == 0 && pers) M(MPI_Ssend_init(buf, 100, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq));
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            if (pers) M(MPI_Start(&rq));
            else M(MPI_Issend(buf, 100, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq));
            nb_wait = now();
            M(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            spin(2 * D_NS);
            if (pers) M(MPI_Request_free(&rq));
        } else if (rank == 1) {
            spin(3 * D_NS);
            nb_ia = now();
            M(MPI_Recv(buf, 100, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else if (strcmp(mode, "issendall") == 0) {
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            MPI_Request rq[2];
            MPI_Status st[2];
            M(MPI_Issend(buf, 100, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq[0]));
            M(MPI_Issend(buf, 100, MPI_BYTE, 2, 8, MPI_COMM_WORLD, &rq[1]));
            nb_wait = now();
            M(MPI_Waitall(2, rq, st));
            spin(2 * D_NS);
        } else {
            if (rank == 2) spin(3 * D_NS);
            nb_ia = now();
            M(MPI_Recv(buf, 100, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else {
        if (rank == 0) fprintf(stderr, "cp_analytic: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Pcontrol(0);   /* before the printf: writing the line is no computation of ours */
    int64_t other = now() - win0 - mpi_total - spin_total;   /* outside MPI but not spinning */
    char line[512];   /* one write: the ranks' lines do not interleave */
    int o = snprintf(line, sizeof line, "CP rank=%d spin_ns=%lld mpi_ns=%lld other_ns=%lld iters=", rank,
                     (long long)spin_total, (long long)mpi_total, (long long)other);
    for (int k = 0; k < 8; k++) o += snprintf(line + o, sizeof line - o, "%s%lld", k ? "," : "", (long long)iter_spin[k]);
    o += snprintf(line + o, sizeof line - o, " nb=%lld,%lld", (long long)nb_ia, (long long)nb_wait);
    printf("%s\n", line);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
