#!/usr/bin/env bash
# mpilens top at scale, on synthetic rank files (bench/gen_ranks.c --live):
# 4,096 ranks with one odd rank out: the big group is one range, the odd
# rank has its own row whichever the sort, the table fits --rows and
# --width; a cut table keeps died ranks and the oldest group on screen; every
# state is shown as it is, never invented (not started, no call yet,
# polling, finalized, exited, died, died by signal, threads, stale); a call
# that began after top looked at its clock is 0 s old, not negative, at 80
# and 200 columns, its rank lists cut after a whole number ("11,..." not
# "11,1..."); ages that round to one are one ("20m00s", not
# "20m00s-20m00s").
# timeout: 150
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
M=${MPILENS:-$root/build/bin/mpilens}
t=${TEST_TMP:-$(mktemp -d)}
fail=0
bad() { echo "FAIL $*"; fail=1; }
has() {  # file, extended regexp, what
    grep -Eq -- "$2" "$1" || { bad "$3: no /$2/ in:"; sed 's/^/    /' "$1"; }
}
[ -x "$M" ] || { echo "FAIL build/bin/mpilens missing"; exit 1; }
cc -O2 -g -o "$t/gen_ranks" "$root/bench/gen_ranks.c" || { echo "FAIL gen_ranks does not build"; exit 1; }
pid=$$   # this shell: the process of the ranks that must look alive

fits() {  # file rows cols what
    local n w
    n=$(wc -l <"$1")
    w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1")
    [ "$n" -le "$2" ] || bad "$4: $n lines, more than --rows $2"
    [ "$w" -le "$3" ] || bad "$4: a line of $w columns, more than --width $3"
}

# ---- stale: a rank on another host that never changes (needs 30 s of watching)
"$t/gen_ranks" --live "$t/states" 12 states $pid >/dev/null || bad "gen states"
timeout 45 "$M" top "$t/states" --interval 2 --deadlock-timeout 0 --width 160 >"$t/stale.out" 2>&1 &
stale_job=$!

# ---- 4,096 ranks: 4,095 in MPI_Allreduce at solver.c:10, rank 4095 elsewhere
"$t/gen_ranks" --live "$t/odd" 4096 odd-recv $pid >/dev/null || bad "gen odd-recv"
"$M" top "$t/odd" --once --width 120 --rows 10 >"$t/size.out" 2>&1 || bad "top odd: exit $?"
has "$t/size.out" '^mpilens top .*: 4096 ranks: 4096 in MPI' "odd, header"
sed -n 3p "$t/size.out" | grep -Eq '^0-4094 +MPI_Allreduce on MPI_COMM_WORLD +solver\.c:10 +started [0-9.]+-[0-9.]+s ago' ||
    bad "odd, size sort: first row is not the big range: $(sed -n 3p "$t/size.out")"
has "$t/size.out" '^4095 +MPI_Recv from 0 tag 7 +solver\.c:20 +started [0-9.]+s ago' "odd, size sort"
fits "$t/size.out" 10 120 "odd, size sort"
"$M" top "$t/odd" --once --width 120 --rows 10 --sort age >"$t/age.out" 2>&1 || bad "top odd age: exit $?"
sed -n 3p "$t/age.out" | grep -Eq '^4095 +MPI_Recv from 0 tag 7 +solver\.c:20' ||
    bad "odd, age sort: first row is not the oldest (rank 4095): $(sed -n 3p "$t/age.out")"
has "$t/age.out" '^0-4094 +MPI_Allreduce' "odd, age sort"
"$M" top "$t/odd" --once --width 120 --rows 4 >"$t/tiny.out" 2>&1
has "$t/tiny.out" '^4095 +MPI_Recv' "odd, --rows 4"
fits "$t/tiny.out" 4 120 "odd, --rows 4"

rm -rf "$t/odd"

# ---- 1,024 ranks: even ranks in MPI_Allreduce, odd ranks in a ring of
# MPI_Recv (each from r+2): the verdict's lines at scale.  Before, each
# even rank's 'waits for' line listed 256 bytes of the 512 odd ranks and
# then '...' (how many left unsaid: not said), the collective's line every
# rank in it and every rank missing.  Now each list is cut at 40 columns
# with the count of the rest, and no line grows with the ranks (at most
# about 500 columns: the states of four ranks in a row, as at 4 ranks)
"$t/gen_ranks" --live "$t/half" 1024 half-recv $pid >/dev/null || bad "gen half-recv"
timeout 60 "$M" top "$t/half" --deadlock-timeout 1 --interval 0.5 --width 120 >"$t/half.out" 2>&1
rc=$?
[ $rc = 3 ] || bad "half-recv: top exit $rc, want 3 (a deadlock): $(tail -3 "$t/half.out")"
has "$t/half/deadlock.txt" '^      waits for ranks 1,3,5,7,9,11,13,15,17,19,\.\.\. \(502 more\): rank 1 in MPI_Recv from 3 tag 7 at solver\.c:20; ' "half-recv, waits for (10 + 502 = 512 odd ranks)"
has "$t/half/deadlock.txt" '^  collective MPI_Allreduce .*: ranks 0,2,4,6,8,10,12,14,16,18,20,22,24,\.\.\. \(499 more\) in it; ranks 1,3,5,7,9,11,13,15,17,19,21,23,25,\.\.\. \(499 more\) never arrive: ' "half-recv, the collective's lists"
has "$t/half/deadlock.txt" '\(a cycle of 512\)$' "half-recv, the cycle"
long=$(awk 'length > 500' "$t/half/deadlock.txt" | head -2)
[ -z "$long" ] || bad "half-recv: lines over 500 columns: ${long:0:400}"
rm -rf "$t/half"

# ---- calls that began after top looked at its clock (while it read the
# files): their age is 0, never negative, and a group of such calls still
# says when (before: "started -30.0-2.6s ago", and an empty WHEN)
"$t/gen_ranks" --live "$t/late" 64 late $pid >/dev/null || bad "gen late"
for wd in 80 200; do
    "$M" top "$t/late" --once --width $wd --rows 30 >"$t/late$wd.out" 2>&1 || bad "top late: exit $?"
    fits "$t/late$wd.out" 30 $wd "late, width $wd"
    grep -Eq '[0-9]\.\.\. \(' "$t/late$wd.out" && bad "late, width $wd: a rank list ends in a cut number: $(grep -E '[0-9]\.\.\. \(' "$t/late$wd.out")"
    grep -Eq -- ' -[0-9]|[0-9]--[0-9]' "$t/late$wd.out" && bad "late, width $wd: a negative age: $(grep -E -- ' -[0-9]|[0-9]--[0-9]' "$t/late$wd.out")"
    n=$(sed -n '3,$p' "$t/late$wd.out" | grep -Ec ' started [0-9.]+(-[0-9.]+)?s ago$')
    [ "$n" = 2 ] || bad "late, width $wd: $n of 2 groups say when they started: $(tr '\n' '|' <"$t/late$wd.out")"
done
rm -rf "$t/late"

# ---- a job that ended minutes ago: one age where its range rounds to one
# (before: "finalized  20m00s-20m00s ago")
"$t/gen_ranks" --live "$t/old" 64 old $pid >/dev/null || bad "gen old"
"$M" top "$t/old" --once --width 120 >"$t/old.out" 2>&1 || bad "top old: exit $?"
has "$t/old.out" '^0-63 +finalized +20m0[01]s ago$' "old, the ranks finalized 1200.0-1200.6 s ago"
rm -rf "$t/old"
"$t/gen_ranks" --live "$t/oddc" 4096 odd-compute $pid >/dev/null || bad "gen odd-compute"
"$M" top "$t/oddc" --once --width 120 >"$t/comp.out" 2>&1
has "$t/comp.out" '^0-4094 +MPI_Allreduce' "odd-compute"
has "$t/comp.out" '^4095 +computing +after MPI_Bcast solver\.c:30 +completed [0-9.]+s ago' "odd-compute"
rm -rf "$t/oddc"

# ---- 4,096 ranks in varied states, table cut to 7 lines: died ranks stay
"$t/gen_ranks" --live "$t/mixed" 4096 mixed $pid >/dev/null || bad "gen mixed"
"$M" top "$t/mixed" --once --width 120 --rows 7 >"$t/mixed.out" 2>&1
has "$t/mixed.out" '^(mpilens top: )?4096 ranks: .*4 not started, 4 finalized, 4 exited, 4 died' "mixed, header counts (fits the width)"
has "$t/mixed.out" '^0,4,12-14,.*\(2288 ranks\) +MPI_Waitall of 4 requests' "mixed, largest group first, counted"
has "$t/mixed.out" '^5,1029,2053,3077 +died' "mixed, died kept in a cut table"
has "$t/mixed.out" '^\.\.\. [0-9]+ more groups \([0-9]+ ranks\)' "mixed, the cut is said"
fits "$t/mixed.out" 7 120 "mixed, cut"
"$M" top "$t/mixed" --once --width 120 >"$t/mixed-all.out" 2>&1
has "$t/mixed-all.out" '^10,74,138.*thread 1 +MPI_Send to r\+1 tag 1 +solver\.c:60' "mixed, threads in MPI"
has "$t/mixed-all.out" '^10,74,138.*thread 3 +MPI_Waitall of 2 req' "mixed, threads in MPI"
rm -rf "$t/mixed"

# ---- one rank in each state: shown as it is
"$t/gen_ranks" --live "$t/st" 12 states $pid >/dev/null || bad "gen states"
"$M" top "$t/st" --once --width 160 --interval 5 >"$t/st.out" 2>&1
has "$t/st.out" '12 ranks: 4 in MPI, 1 polling, 1 computing, 1 starting, 1 not started, 1 finalized, 1 exited, 2 died' "states, header"
has "$t/st.out" '^0 +MPI_Barrier on MPI_COMM_WORLD +solver\.c:70 +started' "states, in MPI"
has "$t/st.out" '^1 +computing +after MPI_Allreduce solver\.c:10 +completed' "states, computing"
has "$t/st.out" '^2 +MPI_Test \(polling, nothing completes\) +solver\.c:50 +last progress' "states, polling"
has "$t/st.out" '^3 +finalized ' "states, finalized"
has "$t/st.out" '^4 +exited without MPI_Finalize \(status 3\) +after MPI_Allreduce' "states, exited"
has "$t/st.out" '^5 +died \(process gone, no MPI_Finalize\) +in MPI_Recv solver\.c:20' "states, died"
has "$t/st.out" '^6 +died: signal 11 ' "states, died by signal"
has "$t/st.out" '^7 +not started \(no rank file yet\)' "states, not started"
has "$t/st.out" '^8 +computing \(no MPI call yet\)' "states, no call yet"
has "$t/st.out" '^9-10 +MPI_Recv from various \(various tags\) +solver\.c:20' "states, thread 0 of 9 and remote 10"
has "$t/st.out" '^9 thread 1 +MPI_Send to 10 tag 9 +solver\.c:60' "states, second thread"
has "$t/st.out" '^11 +MPI_Allreduce on MPI_COMM_WORLD' "states, in MPI"
if grep -q stale "$t/st.out"; then bad "states: stale at first sight"; fi

wait $stale_job
has "$t/stale.out" '^10 +stale: no update for long \(host far-node0\)' "stale after 30 s"
[ $fail -eq 0 ] && echo "ok live_scale"
exit $fail
