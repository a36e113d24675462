# Linking the runtime explicitly (README, 'Linking the runtime explicitly'),
# both MPIs, 3 ranks of examples/ring.c, no LD_PRELOAD, a plain mpirun:
#  - the shared runtime on the link line (-L -lmpilens-<mpi> -Wl,-rpath)
#    before the MPI library: same output as the plain program, a complete
#    trace in $MPILENS_DIR (every call once, at ring.c:<line>), and in
#    mpilens-ring-<job id>/ without MPILENS_DIR;
#  - the archive libmpilens-<mpi>.a: the same; and `mpilens run` on that
#    program records each call once (no second runtime preloaded); an exit()
#    without MPI_Finalize is diagnosed at the program's line (the runtime's
#    own frames, and only those, dropped from the backtrace);
#  - MPICH linked statically (libmpich.a, where installed) with the archive
#    before it: complete trace; without the archive, mpilens run says the
#    program has MPI linked into it.
# timeout: 300
need_mpilens
src=$ROOT/examples/ring.c
L=$ROOT/build/lib/mpilens
laps=10 n=3
cat >"$TEST_TMP/quit.c" <<'EOF'
#include <mpi.h>
#include <stdlib.h>
__attribute__((noinline)) void give_up(int r) { if (r == 1) exit(3); /* at:exit */ }
int main(int c, char **v)
{
    MPI_Init(&c, &v);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    give_up(r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
EOF
l_exit=$(line_of "$TEST_TMP/quit.c" "at:exit")
l_send=$(grep -n 'MPI_Send' "$src" | sed -n 2p | cut -d: -f1)   # ranks > 0
l_recv=$(grep -n 'MPI_Recv' "$src" | sed -n 2p | cut -d: -f1)

# check_trace DIR WHAT: n rank files; per rank Init/Finalize once, laps
# Send and Recv at ring.c:<line> (rank 1)
check_trace() {
    local dir=$1 what=$2 r f
    check_rank_files "$dir" $n "$what" || return 1
    "$MPILENS" dump "$dir" 2>"$dir.err" | grep -av '^#' >"$dir.dump"
    for ((r = 0; r < n; r++)); do
        for f in MPI_Init MPI_Finalize MPI_Allreduce; do
            assert_eq 1 "$(count_calls "$dir.dump" $r $f)" "$what: rank $r $f events"
        done
        for f in MPI_Send MPI_Recv; do
            assert_eq $laps "$(count_calls "$dir.dump" $r $f)" "$what: rank $r $f events"
        done
    done
    assert_eq "ring.c:$l_send" "$(awk '$1 == 1 && $5 == "MPI_Send" { print $6 }' "$dir.dump" | sort -u | tr '\n' ' ' | sed 's/ $//')" "$what: rank 1 MPI_Send site"
    assert_eq "ring.c:$l_recv" "$(awk '$1 == 1 && $5 == "MPI_Recv" { print $6 }' "$dir.dump" | sort -u | tr '\n' ' ' | sed 's/ $//')" "$what: rank 1 MPI_Recv site"
    note "$what: $(wc -l <"$dir.dump") events"
}
# same_output PROG WHAT: ring's output under a plain mpirun, MPILENS_DIR=$d/WHAT
same_output() {
    local p=$1 what=$2
    (cd "$d" && MPILENS_DIR=$d/$what run_mpi "$impl" $n "$p") >"$d/$what.out" 2>"$d/$what.err" ||
        soft_fail "$impl $what: exit status $?: $(head -c 300 "$d/$what.err")"
    assert_eq "$(cat "$d/plain.out")" "$(cat "$d/$what.out")" "$impl $what: output"
    check_trace "$d/$what" "$impl $what"
}

for impl in openmpi mpich; do
    have_impl "$impl" || { soft_fail "$impl is not installed"; continue; }
    [ -f "$L/libmpilens-$impl.a" ] || { soft_fail "$L/libmpilens-$impl.a is not built (make)"; continue; }
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    cc=mpicc.$impl
    $cc -g -o "$d/ring" "$src" || { soft_fail "$impl: cannot build ring"; continue; }
    $cc -g -o "$d/ring-so" "$src" -L"$L" -lmpilens-$impl -Wl,-rpath,"$L" || soft_fail "$impl: cannot link the shared runtime"
    $cc -g -o "$d/ring-a" "$src" "$L/libmpilens-$impl.a" || soft_fail "$impl: cannot link the runtime archive"
    $cc -g -O0 -o "$d/quit-a" "$TEST_TMP/quit.c" "$L/libmpilens-$impl.a" || soft_fail "$impl: cannot link quit.c with the archive"
    ldd "$d/ring-so" | grep -q "libmpilens-$impl.so" || soft_fail "$impl: ring-so does not load libmpilens-$impl.so"
    (cd "$d" && run_mpi "$impl" $n ./ring) >"$d/plain.out" 2>"$d/plain.err" || soft_fail "$impl: plain ring failed"

    same_output "$d/ring-so" so
    same_output "$d/ring-a" archive
    # no MPILENS_DIR: mpilens-<exe>-<job id>/ in the current directory
    mkdir "$d/cwd"
    (cd "$d/cwd" && run_mpi "$impl" $n ../ring-so) >"$d/cwd.out" 2>&1 || soft_fail "$impl: ring-so without MPILENS_DIR failed"
    dirs=$(cd "$d/cwd" && ls -d mpilens-ring-so-* 2>/dev/null)
    if [ "$(echo "$dirs" | grep -c .)" = 1 ]; then
        check_trace "$d/cwd/$dirs" "$impl so, default directory $dirs"
    else
        soft_fail "$impl: without MPILENS_DIR, expected one mpilens-ring-so-<id>/, got '$(ls "$d/cwd" | tr '\n' ' ')'"
    fi
    # mpilens run on the program with the archive: no second runtime
    (cd "$d" && "$MPILENS" run -q -n $n -o "$d/run-a" ./ring-a) >"$d/run-a.out" 2>"$d/run-a.err" ||
        soft_fail "$impl: mpilens run ring-a: $(head -c 300 "$d/run-a.err")"
    if [ -s "$d/run-a.err" ]; then soft_fail "$impl: mpilens run ring-a wrote to stderr: $(head -c 300 "$d/run-a.err")"; fi
    check_trace "$d/run-a" "$impl mpilens run, archive"
    # exit() in the program: diagnosed at its line
    (cd "$d" && MPILENS_DIR=$d/quit run_mpi "$impl" 2 ./quit-a) >"$d/quit.out" 2>&1
    "$MPILENS" report --failures "$d/quit" >"$d/quit.report" 2>&1
    assert_contains "$(cat "$d/quit.report")" "where: quit.c:$l_exit" "$impl archive: failure diagnosis of exit(3)"
done

# MPICH linked statically into the program (Debian ships libmpich.a; its
# dependencies hwloc and UCX stay shared: a fully static binary cannot be
# linked from Debian 12's packages, libudev has no static library)
if [ -f /usr/lib/x86_64-linux-gnu/libmpich.a ] && have_impl mpich; then
    impl=mpich d=$TEST_TMP/static
    mkdir -p "$d"
    inc=$(mpicc.mpich -show | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
    deps=(-Wl,-Bstatic -lmpich -Wl,-Bdynamic -lhwloc -lucp -lucs -lm -lpthread -ldl)
    gcc -g $inc -o "$d/ring" "$src" "${deps[@]}" 2>"$d/link.err" || fail "cannot link ring with libmpich.a: $(grep -v warning "$d/link.err" | head -c 300)"
    gcc -g $inc -o "$d/ring-a" "$src" "$L/libmpilens-mpich.a" "${deps[@]}" 2>>"$d/link.err" || fail "cannot link ring with the archive and libmpich.a"
    if ldd "$d/ring-a" | grep -q 'libmpi'; then soft_fail "static: ring-a loads an MPI library: $(ldd "$d/ring-a" | grep libmpi)"; fi
    (cd "$d" && run_mpi mpich $n ./ring) >"$d/plain.out" 2>"$d/plain.err" || soft_fail "static: plain ring failed"
    same_output "$d/ring-a" static-archive
    (cd "$d" && "$MPILENS" run -q -n $n -o "$d/run-a" ./ring-a) >"$d/run-a.out" 2>"$d/run-a.err" ||
        soft_fail "static: mpilens run ring-a: $(head -c 300 "$d/run-a.err")"
    check_trace "$d/run-a" "static mpilens run, archive"
    (cd "$d" && "$MPILENS" run -q -n $n -o "$d/run-plain" ./ring) >"$d/run-plain.out" 2>"$d/run-plain.err" &&
        soft_fail "static: mpilens run on a program with MPI linked in and no runtime succeeded"
    assert_contains "$(cat "$d/run-plain.err")" "has MPI linked into it (statically)" "static: mpilens run without the archive"
    if [ -e "$d/run-plain" ]; then soft_fail "static: mpilens run left $d/run-plain"; fi
else
    note "libmpich.a not installed: the statically linked MPI is not tested"
fi
