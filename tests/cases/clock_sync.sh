#!/usr/bin/env bash
# Clock samples at MPI_Init and MPI_Finalize, on both MPIs: with groups of one
# rank acting as nodes (MPILENS_NODE_SIZE=1), every rank but 0 measures its
# offset to rank 0 by ping-pong (rtt > 0); on one machine the offset is small.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
M=${MPILENS:-$root/build/bin/mpilens}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPILENS_NODE_SIZE=1
fail=0
for impl in openmpi mpich; do
    command -v mpicc.$impl >/dev/null || continue
    mpicc.$impl -g -o "$t/ring-$impl" "$root/examples/ring.c"
    if [ $impl = openmpi ]; then
        MPILENS_DIR=$t/$impl LD_PRELOAD=$root/build/lib/mpilens/libmpilens-$impl.so \
            mpirun.openmpi --oversubscribe -x MPILENS_NODE_SIZE -n 3 "$t/ring-$impl" 2 >/dev/null
    else
        MPILENS_DIR=$t/$impl LD_PRELOAD=$root/build/lib/mpilens/libmpilens-$impl.so \
            mpirun.mpich -n 3 "$t/ring-$impl" 2 >/dev/null
    fi
    "$M" dump "$t/$impl" | grep '^# rank [0-9]* clock' > "$t/clk"
    n=$(grep -c 'at MPI_Init [-+][0-9]* ns (rtt [0-9]* ns), at MPI_Finalize [-+][0-9]* ns (rtt [0-9]* ns)' "$t/clk")
    [ "$n" = 3 ] || { echo "FAIL $impl: want 3 ranks with both samples:"; cat "$t/clk"; fail=1; continue; }
    # |offset| is bounded by half the best round trip of its own sample (plus
    # slack for a loaded machine): each offset "+N ns" is followed by its "(rtt M ns)"
    bad=$(awk '$3!=0 { for(i=1;i<=NF;i++) if($i ~ /^[-+][0-9]+$/ && $(i+2)=="(rtt"){
                           o=$i+0; if(o<0)o=-o; r=$(i+3)+0
                           if(r<=0) print "rtt<=0: " $0
                           else if(o>r+1000000) print "offset beyond rtt+1ms: " $0} }' "$t/clk")
    [ -z "$bad" ] || { echo "FAIL $impl: $bad"; fail=1; continue; }
    echo "ok $impl: $(tr '\n' ' ' < "$t/clk")"
done
exit $fail
