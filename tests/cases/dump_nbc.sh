# mpilens dump on nonblocking collectives (tests/programs/nbc_wait.c:
# MPI_Igather + MPI_Wait, MPI_Iallreduce + MPI_Ibarrier + MPI_Waitall), both
# MPIs, 3 ranks: each MPI_I* line shows the request it started (req=), and
# the Wait lines name those requests in done= with no peer, tag or bytes: a
# collective's completion is no message (before: no req= on the collectives,
# and their completions printed like receives, e.g. with MPICH's status of
# an MPI_Igather "done=0x.../?/9/8 peer=2@comm tag=9 bytes=8").
need_mpilens
n=3
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl nbc_wait) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: exit status $?: $(head -3 "$d/err" | tr '\n' ' ')"; continue; }
    grep -q "nbc_wait: gathered 6, allreduce 6" "$d/out" || soft_fail "$impl: program output: $(head -2 "$d/out")"
    "$MPILENS" dump --no-header "$d/run" >"$d/dump" || { soft_fail "$impl: dump failed"; continue; }
    bad=$(awk -v n=$n '
        $5 ~ /^MPI_I(gather|allreduce|barrier)$/ {
            calls++
            if (match($0, / req=0x[0-9a-f]+/)) req[$1 " " substr($0, RSTART + 5, RLENGTH - 5)] = $5
            else printf "no req= on %s; ", $0
        }
        $5 == "MPI_Wait" || $5 == "MPI_Waitall" {
            waits++
            if ($0 ~ / peer=| tag=| bytes=/) printf "a message in: %s; ", $0
            if (!match($0, / done=[^ ]*/)) { printf "no done= in: %s; ", $0; next }
            k = split(substr($0, RSTART + 6, RLENGTH - 6), h, ",")
            for (i = 1; i <= k; i++) {
                if (h[i] !~ /^0x[0-9a-f]+$/) printf "done entry %s of rank %s is not a bare handle; ", h[i], $1
                if (!(($1 " " h[i]) in req)) printf "rank %s completes %s, started by no collective; ", $1, h[i]
                else done++
            }
        }
        END {
            if (calls != 3 * n) printf "%d nonblocking collective calls, not %d; ", calls, 3 * n
            if (waits != 2 * n) printf "%d Wait calls, not %d; ", waits, 2 * n
            if (done != 3 * n) printf "%d completions of them, not %d; ", done, 3 * n
        }' "$d/dump")
    [ -z "$bad" ] || soft_fail "$impl: ${bad:0:600}"
done
# The report knows those requests: their completions are not
# "untracked_completions" (completed requests no recorded call started;
# before: 3 per rank), and nothing else about messages changes.
for impl in openmpi mpich; do
    d=$TEST_TMP/$impl
    [ -d "$d/run" ] || continue
    got=$("$MPILENS" report --json "$d/run" | python3 -c '
import json, sys
m = json.load(sys.stdin)["messages"]
print(m["untracked_completions"], m["matched"], m["unmatched_receives"], m["pending_receives"])')
    assert_eq "0 0 0 0" "$got" "$impl: report untracked_completions matched unmatched_receives pending_receives"
done
