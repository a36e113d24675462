# Fortran collectives with a receive count and type (tests/programs/
# coll_bytes.f90: MPI_Gather, MPI_Allgather, MPI_Alltoall, MPI_Scatter,
# MPI_Igather; 2 integers sent, 1 double received per rank) through `mpilens
# run`, both MPIs, 3 ranks: every call recorded with its receive side
# (dump: bytes=8 rbytes=8), and the report's per-rank collective bytes (JSON
# matrix.collectives) are what the buffers carried: rank 0 receives
# 3x8 (Gather) + 3x8 (Allgather) + 3x8 (Alltoall) + 8 (Scatter) + 3x8
# (Igather) = 104 bytes and sends 72, the others receive 3x8 + 3x8 + 8 = 56
# and send 48.  Open MPI's Fortran
# binding calls PMPI_ itself, so its calls are recorded by the Fortran
# wrapper: it recorded no receive side (rbytes=0; rank 0 received 0 in
# Gather and Igather).
need_mpilens
n=3
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl coll_bytes_f90) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: exit status $?: $(head -3 "$d/err" | tr '\n' ' ')"; continue; }
    grep -q "coll_bytes: $n ranks" "$d/out" || soft_fail "$impl: program output: $(head -2 "$d/out")"
    "$MPILENS" dump --no-header "$d/run" >"$d/dump" || { soft_fail "$impl: dump failed"; continue; }
    for r in MPI_Gather MPI_Allgather MPI_Alltoall MPI_Scatter MPI_Igather; do
        k=$(grep -c " $r coll_bytes.f90:[0-9]* .*bytes=8 rbytes=8 type=MPI_INTEGER" "$d/dump")
        assert_eq "$n" "$k" "$impl: $r records with bytes=8 rbytes=8"
    done
    "$MPILENS" report --json "$d/run" >"$d/rep.json" 2>"$d/rep.err" || { soft_fail "$impl: report: $(head -2 "$d/rep.err")"; continue; }
    got=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["matrix"]["collectives"]
print(" ".join("%d:%d/%d" % (c["rank"], c["sent"], c["received"]) for c in sorted(m, key=lambda c: c["rank"])))' "$d/rep.json")
    # sent: 8 per call, Alltoall 3x8, Scatter 3x8 at its root (0 elsewhere)
    assert_eq "0:72/104 1:48/56 2:48/56" "$got" "$impl: per-rank collective bytes rank:sent/received"
done
