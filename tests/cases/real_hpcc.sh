# HPCC (Debian's hpcc) with a small problem (N=400, 2x2 grid) on 4 ranks,
# once with a plain mpirun of the MPI hpcc links and once through
# `mpilens run -q -n 4 -o DIR hpcc` (mpilens picks the MPI and the launcher):
# every check HPCC makes passes in both (HPL/PTRANS residuals, STREAM
# validation, RandomAccess and FFT errors, Success=1 in the summary); 4 rank
# files with a plausible number of events (mpilens dump).
# timeout: 300
hpcc=$(command -v hpcc) || fail "hpcc not installed (Debian package hpcc)"
impl=$(mpi_of "$hpcc")
[ "$impl" != unknown ] || fail "cannot tell which MPI $hpcc links"
need_runtime "$impl"
note "hpcc links $impl"
write_input() {
    cat >"$1/hpccinf.txt" <<'INPUT'
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
400          Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
2            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
INPUT
}
check_hpcc() {  # dir what
    local f=$1/hpccoutf.txt what=$2
    [ -s "$f" ] || { soft_fail "$what: no hpccoutf.txt"; return; }
    grep -q '^Success=1' "$f" || soft_fail "$what: summary does not say Success=1"
    grep -q 'End of Summary section' "$f" || soft_fail "$what: no summary end (did HPCC finish?)"
    grep -q 'FAILED' "$f" && soft_fail "$what: $(grep -m1 'FAILED' "$f")"
    grep -Eq '^ *[1-9][0-9]* tests completed and failed residual checks' "$f" &&
        soft_fail "$what: $(grep -m1 -E 'tests completed and failed' "$f")"
    [ "$(grep -c 'tests completed and passed residual checks' "$f")" -ge 2 ] ||
        soft_fail "$what: HPL and PTRANS residual checks not both reported"
    grep -Eq 'Found [1-9][0-9]* errors' "$f" && soft_fail "$what: $(grep -m1 -E 'Found [1-9]' "$f")"
    grep -Eq 'Node\(s\) with error [1-9]' "$f" && soft_fail "$what: $(grep -m1 -E 'Node\(s\) with error [1-9]' "$f")"
    grep -q 'Solution Validates' "$f" || soft_fail "$what: STREAM solution does not validate"
    local k
    for k in MPIRandomAccess_Errors MPIRandomAccess_LCG_Errors; do
        grep -q "^$k=0\$" "$f" || soft_fail "$what: $(grep -m1 "^$k=" "$f" || echo "$k missing")"
    done
    awk -F= '/^MPIFFT_maxErr=/ { found = 1; if ($2 + 0 > 1e-8) bad = 1 } END { exit !(found && !bad) }' "$f" ||
        soft_fail "$what: MPIFFT_maxErr $(grep -m1 '^MPIFFT_maxErr=' "$f")"
}
for mode in plain rt; do
    mkdir -p "$TEST_TMP/$mode"
    write_input "$TEST_TMP/$mode"
done
(cd "$TEST_TMP/plain" && run_mpi "$impl" 4 "$hpcc") >"$TEST_TMP/plain.out" 2>"$TEST_TMP/plain.err"
assert_eq 0 $? "exit status of hpcc without the runtime"
check_hpcc "$TEST_TMP/plain" "without the runtime"
need_mpilens
(cd "$TEST_TMP/rt" && "$MPILENS" run -q -n 4 -o "$TEST_TMP/run" "$hpcc") >"$TEST_TMP/rt.out" 2>"$TEST_TMP/rt.err"
assert_eq 0 $? "exit status of mpilens run hpcc ($(head -c 300 "$TEST_TMP/rt.err"))"
check_hpcc "$TEST_TMP/rt" "under the runtime"
check_rank_files "$TEST_TMP/run" 4 "hpcc under the runtime"
run_events "$TEST_TMP/run"
# plausible: every rank initialises and finalises once; HPL alone (N=400,
# NB=40: 10 panels, each broadcast along the row and swapped along the
# column) and RandomAccess (updates exchanged between all ranks) make
# hundreds of point-to-point calls per rank, plus collectives; not without bound
once_per_rank "$TEST_TMP/events.txt" 4 MPI_Init MPI_Finalize
for ((r = 0; r < 4; r++)); do
    k=$(awk -v r=$r '$1 == r' "$TEST_TMP/events.txt" | wc -l)
    [ "$k" -ge 250 ] && [ "$k" -le 2000000 ] || soft_fail "rank $r: $k events (expected 250 to 2000000)"
    k=$(awk -v r=$r '$1 == r && $5 ~ /^MPI_(Send|Isend|Recv|Irecv|Sendrecv)$/' "$TEST_TMP/events.txt" | wc -l)
    [ "$k" -ge 100 ] || soft_fail "rank $r: $k point-to-point sends and receives (expected 100 at least)"
    k=$(awk -v r=$r '$1 == r && $5 ~ /^MPI_(Allreduce|Bcast|Reduce|Barrier|Alltoall|Alltoallv|Allgather)$/' "$TEST_TMP/events.txt" | wc -l)
    [ "$k" -ge 10 ] || soft_fail "rank $r: $k collectives (expected 10 at least)"
done
