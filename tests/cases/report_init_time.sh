# The runtime's own work at MPI_Init (its clock sync, collectives on a
# communicator of its own) belongs to MPI_Init, not to the program's
# computation after it.  A preloaded library makes the runtime's first
# PMPI_Comm_dup (its private communicator at MPI_Init) sleep 2 s; the program
# calls MPI_Comm_rank right after MPI_Init (ok_sleep.c, ring.f90: C, and
# Fortran, whose Open MPI binding calls PMPI_Init itself).  On every rank the
# recorded MPI_Init lasts at least those 2 s and the next call starts less
# than 1 s after it ends (before: MPI_Init ended before the sleep, and the
# report showed 2 s of computation between MPI_Init and MPI_Comm_rank).
need_mpilens
cd "$TEST_TMP" || fail "no TEST_TMP"
cat >slowdup.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>
typedef int (*dup_fn)(void *, void *);
int PMPI_Comm_dup(void *comm, void *newcomm)
{
    static dup_fn real;
    static int calls;
    if (!real) real = (dup_fn)dlsym(RTLD_NEXT, "PMPI_Comm_dup");
    if (calls++ == 0) sleep(2);
    return real(comm, newcomm);
}
C
cc -shared -fPIC -o slowdup.so slowdup.c -ldl || fail "cannot build the slow PMPI_Comm_dup"
n=3
for impl in openmpi mpich; do
    need_runtime "$impl"
    rt=$(runtime_of "$impl")
    for name in ok_sleep ring_f90; do
        p=$(prog "$impl" "$name") || continue
        d=$TEST_TMP/$impl-$name
        case $impl in
        openmpi) mpirun.openmpi --oversubscribe -x LD_PRELOAD="$rt:$TEST_TMP/slowdup.so" -x MPILENS_DIR="$d" -n $n "$p" ;;
        mpich) mpirun.mpich -genv LD_PRELOAD "$rt:$TEST_TMP/slowdup.so" -genv MPILENS_DIR "$d" -n $n "$p" ;;
        esac >"$d.out" 2>"$d.err" || { soft_fail "$impl $name: exit status $?: $(head -3 "$d.err" | tr '\n' ' ')"; continue; }
        "$MPILENS" dump --no-header "$d" >"$d.dump" 2>"$d.dump.err" || { soft_fail "$impl $name: dump: $(cat "$d.dump.err")"; continue; }
        # per rank: MPI_Init's duration, the gap to the next call
        bad=$(awk -v n=$n '
            seen[$1] == 1 { gap[$1] = $3 - iend[$1]; seen[$1] = 2 }
            $5 == "MPI_Init" { init[$1] = $4 - $3; iend[$1] = $4; seen[$1] = 1 }
            END {
                for (r = 0; r < n; r++) {
                    if (!(r in init)) { printf "rank %d: no MPI_Init; ", r; continue }
                    if (init[r] < 2.0) printf "rank %d: MPI_Init %.3f s (< the 2 s slept in it); ", r, init[r]
                    if (seen[r] != 2) printf "rank %d: no call after MPI_Init; ", r
                    else if (gap[r] >= 1.0) printf "rank %d: %.3f s between MPI_Init and the next call; ", r, gap[r]
                }
            }' "$d.dump")
        [ -z "$bad" ] || soft_fail "$impl $name: $bad"
        # the report: the routine table counts the sleep in MPI_Init
        "$MPILENS" report "$d" >"$d.rep" 2>&1 || soft_fail "$impl $name: report failed: $(head -3 "$d.rep")"
        note "$impl $name: $(grep -m1 '^  MPI_Init ' "$d.rep")"
    done
done
