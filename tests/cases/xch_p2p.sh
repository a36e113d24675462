# xch_p2p: the point-to-point blocks of the parallel analysis's exchange
# (analysis/exchange.h send/recv: buffered sends of byte blocks to one
# process, receives from any), which a replay across slices uses to follow
# the run's own messages (docs/PARALLEL.md): tests/unit/test_xch.c linked
# with the serial exchange and the MPI one of each MPI, built with 4 KiB
# pieces, under mpirun with 1, 2, 3 and 4 processes: blocks of 0 bytes to
# several pieces to every process and to itself arrive whole, in the order
# each process sent them, their bytes counted; a token passed from process
# to process (a blocking receive per hop); blocks sent before the
# collective calls (in pieces too) received after them; nothing left to
# receive at the end; the serial exchange's own queue (FIFO, -1 for a
# receive that would wait forever).
# timeout: 240
cc_flags="-std=gnu11 -O1 -g -Wall -DAN_XCH_PIECE=4096 -I$ROOT/analysis"
ran=0
for impl in openmpi mpich; do
    have_impl $impl || continue
    t=$TEST_TMP/test_xch_$impl
    "mpicc.$impl" $cc_flags -o "$t" "$ROOT/tests/unit/test_xch.c" "$ROOT/analysis/exchange.c" \
        "$ROOT/analysis/mpi/exchange_mpi.c" 2>"$t.build" || { soft_fail "$impl: build test_xch: $(grep -m3 error "$t.build")"; continue; }
    for n in 1 2 3 4; do
        case $impl in   # a hang is a failure, not the case's time limit
        openmpi) out=$(timeout -k 2 60 mpirun.openmpi --oversubscribe -n $n "$t" 2>&1) ;;
        mpich) out=$(timeout -k 2 60 mpirun.mpich -n $n "$t" 2>&1) ;;
        esac
        rc=$?
        [ $rc = 0 ] || { soft_fail "$impl -n $n: test_xch exit $rc: $(echo "$out" | grep -m4 -E 'FAIL|rror' | tr '\n' ' ')"; continue; }
        assert_contains "$out" "ok (P = $n," "$impl -n $n: test_xch"
        ran=$((ran + 1))
    done
done
[ $ran -gt 0 ] || fail "no MPI to build test_xch with"
