# report_fortran_rsb: MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block
# from Fortran (tests/programs/rep_rsb.f90, use mpi; 3 ranks, both MPIs,
# through mpilens run) count what the C calls count (docs/REPORT.md: send
# recvcount x size per member, receive recvcount): by hand, per rank
# MPI_Reduce_scatter_block 3 doubles x 3 members = 72 B sent, 24 received;
# MPI_Ireduce_scatter_block 2 integers x 3 = 24 sent, 8 received.  dump of
# every rank: bytes=72 rbytes=24 and bytes=24 rbytes=8; report --json:
# MPI_Reduce_scatter_block 3 x 96 = 288 B, MPI_Ireduce_scatter_block
# 3 x 32 = 96 B.
# Before: under Open MPI (its binding calls PMPI_, the Fortran wrapper
# records) both were recorded as bytes=0 rbytes=0: the routines have no
# 'count' argument, only recvcount.
need_mpilens
n=3
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_rsb_f90) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: exit status $?: $(head -3 "$d/err" | tr '\n' ' ')"; continue; }
    grep -q "rep_rsb: $n ranks" "$d/out" || { soft_fail "$impl: program output: $(head -2 "$d/out")"; continue; }
    "$MPILENS" dump --no-header "$d/run" >"$d/dump" || { soft_fail "$impl: dump failed"; continue; }
    k=$(grep -c " MPI_Reduce_scatter_block rep_rsb.f90:[0-9]* .*bytes=72 rbytes=24 " "$d/dump")
    assert_eq "$n" "$k" "$impl: MPI_Reduce_scatter_block records with bytes=72 rbytes=24"
    k=$(grep -c " MPI_Ireduce_scatter_block rep_rsb.f90:[0-9]* .*bytes=24 rbytes=8 " "$d/dump")
    assert_eq "$n" "$k" "$impl: MPI_Ireduce_scatter_block records with bytes=24 rbytes=8"
    "$MPILENS" report --json "$d/run" >"$d/rep.json" 2>"$d/rep.err" || { soft_fail "$impl: report: $(head -2 "$d/rep.err")"; continue; }
    got=$(python3 -c '
import json, sys
rep = json.load(open(sys.argv[1]))
b = {x["routine"]: x["bytes"] for x in rep["routines"]}
print(b.get("MPI_Reduce_scatter_block"), b.get("MPI_Ireduce_scatter_block"))' "$d/rep.json")
    assert_eq "288 96" "$got" "$impl: report bytes of MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block"
done
