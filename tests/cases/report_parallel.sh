# report_parallel: `mpirun -n P mpilens report DIR` (and export) (P > 1) runs as the
# parallel analysis of that MPI (build/bin/mpilens-mpi-<impl>, exec'd by
# mpilens) and gives the same text report and the same --json as the serial
# `mpilens report DIR`, byte for byte, for P = 2, 3 and 4 with both MPIs as
# the analysis engine, on run directories recorded with both MPIs:
# tests/progs/p2p_patterns.c on 4 ranks (every p2p pattern, wildcards,
# collectives, communicators), rep_cancel on 5 ranks (P does not divide the
# ranks), dl_exited on 2 ranks (a rank gone without MPI_Finalize, one stuck
# in MPI_Recv: a crashed, deadlocked run), the first with a rank file
# missing and the second with one cut (named once, in the report).
# `export --format=otf2` under mpirun is split: each process reads only its
# block of rank files (MPILENS_SLICE_LOG) and the archive reads the same as
# the serial one (otf2-print -A, -G and the events) for those directories
# and a threaded run, P = 2, 3, 4, both engines.
# The sliced report (--no-critical-path: each process reads its block of
# rank files, process 0 merges) gives the serial text byte for byte on
# those directories, rep_comms on 6 ranks (communicators spanning slices
# or inside one), rep_probe on 4 (wildcard probes and receives) and
# deadlock_coll_mismatch on 4 (a collective instance whose members called
# different routines: its finding made in slices), P = 2, 3, 4, both
# engines, and its --json the serial one's (P = 3, no fallback: failed
# while in_flight_max, an order-defined count, was in it); the critical
# path falls back to process 0 with a note, the output still the serial one.
# Clocks that need repair (offsets shifted after the run: one rank behind,
# several in different slices, one ahead, one drifting, rep_probe's wildcards, and rep_clockchain's
# ring of 5 whose repairs chain across the slices both ways) are repaired
# across the slices: the report and the OTF2 archive are the serial ones,
# P = 2, 3, 4, both engines, and no process 0 fallback.
# `view --no-critical-path` under mpirun is split the same way (each
# process reads only its block, MPILENS_SLICE_LOG) and writes the serial
# page byte for byte (cmp), P = 2, 3, 4, both engines, on those
# directories (a rank file missing, one cut, a deadlocked run, a rank gone),
# deadlock_coll_mismatch and the clocks needing repair (repaired in slices);
# with the critical path (the default) process 0 writes it, with a note.
# The analysis is not recorded when its mpirun preloads the runtime; a
# process of the analysis that dies makes the job fail, never hang; without
# mpilens-mpi-<impl> next to mpilens, a one-line error.
# timeout: 1000
need_mpilens
engines=""
for e in openmpi mpich; do
    have_impl $e && [ -x "$ROOT/build/bin/mpilens-mpi-$e" ] && engines="$engines $e"
done
[ -n "$engines" ] || fail "no mpilens-mpi-<impl> built (run make)"

# launcher impl n: the command line that starts n processes (run_mpi's, for timeout)
launcher() {
    case $1 in
    openmpi) echo "mpirun.openmpi --oversubscribe -n $2" ;;
    mpich) echo "mpirun.mpich -n $2" ;;
    esac
}
# recorded impl secs dir n prog...: prog under the runtime, at most secs seconds
recorded() {
    local impl=$1 secs=$2 dir=$3 n=$4 rt; shift 4
    rt=$(runtime_of $impl)
    case $impl in
    openmpi) timeout -k 2 "$secs" mpirun.openmpi --oversubscribe -x LD_PRELOAD="$rt" -x MPILENS_DIR="$dir" -n "$n" "$@" ;;
    mpich) timeout -k 2 "$secs" mpirun.mpich -genv LD_PRELOAD "$rt" -genv MPILENS_DIR "$dir" -n "$n" "$@" ;;
    esac
}

dirs="" sdirs=""
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    "mpicc.$impl" -g -O1 -w -o "$d/pp" "$ROOT/tests/progs/p2p_patterns.c" || { soft_fail "$impl: build p2p_patterns"; continue; }
    recorded $impl 120 "$d/pp-run" 4 "$d/pp" >"$d/pp.out" 2>&1 || { soft_fail "$impl: p2p_patterns failed"; continue; }
    p=$(prog $impl rep_cancel) || continue
    recorded $impl 120 "$d/cancel-run" 5 "$p" >"$d/cancel.out" 2>&1 || { soft_fail "$impl: rep_cancel failed"; continue; }
    p=$(prog $impl dl_exited) || continue
    recorded $impl 20 "$d/exited-run" 2 "$p" >"$d/exited.out" 2>&1
    check_rank_files "$d/exited-run" 2 "$impl dl_exited" || continue
    dirs="$dirs $d/pp-run $d/cancel-run $d/exited-run"
    # collective-heavy: communicators that span slices or live in one
    p=$(prog $impl rep_comms) || continue
    recorded $impl 120 "$d/comms-run" 6 "$p" >"$d/comms.out" 2>&1 || { soft_fail "$impl: rep_comms failed"; continue; }
    sdirs="$sdirs $d/comms-run"
    # wildcard-heavy: matched probes, wildcard Isendrecv halves, a receive held behind a wildcard
    p=$(prog $impl rep_probe) || continue
    recorded $impl 120 "$d/probe-run" 4 "$p" >"$d/probe.out" 2>&1 || { soft_fail "$impl: rep_probe failed"; continue; }
    sdirs="$sdirs $d/probe-run"
    # a collective mismatch (rank 0 in MPI_Barrier, ranks 1-3 in MPI_Bcast):
    # its finding is made where the instance's arrivals meet, not by process 0
    p=$(prog $impl deadlock_coll_mismatch) || continue
    recorded $impl 20 "$d/collmis-run" 4 "$p" >"$d/collmis.out" 2>&1
    check_rank_files "$d/collmis-run" 4 "$impl deadlock_coll_mismatch" || continue
    sdirs="$sdirs $d/collmis-run"
done
# bad input: a rank file missing, one cut
d=$TEST_TMP/bad
mkdir -p "$d"
first=$(echo $dirs | cut -d' ' -f1) second=$(echo $dirs | cut -d' ' -f2)
cp -r "$first" "$d/missing" && rm "$d/missing/rank-00002.mlt"
cp -r "$second" "$d/cut"
f=$d/cut/rank-00001.mlt
truncate -s $(($(stat -c %s "$f") / 2)) "$f"
dirs="$dirs $d/missing $d/cut"

for dir in $dirs; do
    name=${dir#$TEST_TMP/}
    "$MPILENS" report -q "$dir" >"$dir.serial.txt" 2>"$dir.serial.err" || { soft_fail "$name: serial report failed"; continue; }
    "$MPILENS" report -q --json "$dir" >"$dir.serial.json" 2>/dev/null || { soft_fail "$name: serial --json failed"; continue; }
    for e in $engines; do
        for n in 2 3 4; do
            for fmt in txt json; do
                opt=; [ $fmt = json ] && opt=--json
                out=$dir.$e.$n.$fmt
                timeout 60 $(launcher $e $n) "$MPILENS" report -q $opt "$dir" >"$out" 2>"$out.err"
                rc=$?
                [ $rc = 0 ] || { soft_fail "$name: mpirun ($e) -n $n mpilens report $opt: exit $rc: $(head -3 "$out.err")"; continue; }
                cmp -s "$dir.serial.$fmt" "$out" ||
                    soft_fail "$name: $e -n $n $opt differs from the serial report: $(diff "$dir.serial.$fmt" "$out" | head -4 | tr '\n' ' ')"
            done
        done
    done
done
# the sliced report (--no-critical-path): each process reads only its block
# of rank files (MPILENS_SLICE_LOG) and the text is the serial one, byte for
# byte; a run the slices cannot give the serial result for is analysed by
# process 0, with a note: rep_cancel's runs may (a send to another slice
# whose cancel succeeded, which depends on the run's timing); the others not
for dir in $dirs $sdirs; do
    name=${dir#$TEST_TMP/}
    "$MPILENS" report -q --no-critical-path "$dir" >"$dir.sserial.txt" 2>/dev/null ||
        { soft_fail "$name: serial --no-critical-path failed"; continue; }
    "$MPILENS" report -q --json --no-critical-path "$dir" >"$dir.sserial.json" 2>/dev/null ||
        { soft_fail "$name: serial --json --no-critical-path failed"; continue; }
    case $name in
    */collmis-run) grep -q "^  - collective #2 on MPI_COMM_WORLD: rank [0-3] called MPI_[BcastBarier]* at deadlock_coll_mismatch.c" \
        "$dir.sserial.txt" || soft_fail "$name: no collective mismatch found: $(grep -c collective "$dir.sserial.txt")" ;;
    esac
    for e in $engines; do
        for n in 2 3 4; do
            out=$dir.sl.$e.$n
            MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e $n) "$MPILENS" report -q --no-critical-path "$dir" \
                >"$out" 2>"$out.err"
            rc=$?
            [ $rc = 0 ] || { soft_fail "$name: mpirun ($e) -n $n mpilens report --no-critical-path: exit $rc: $(head -3 "$out.err")"; continue; }
            cmp -s "$dir.sserial.txt" "$out" ||
                soft_fail "$name: $e -n $n: the sliced report differs from the serial one: $(diff "$dir.sserial.txt" "$out" | head -4 | tr '\n' ' ')"
            [ "$(grep -c "^mpilens report: process [0-9] of $n read" "$out.err")" = $n ] ||
                soft_fail "$name: $e -n $n: not every process read its slice: $(head -3 "$out.err")"
            case $name in
            */cancel-run|bad/cut) ;;
            *) ! grep -q "process 0 analyses every rank" "$out.err" ||
                soft_fail "$name: $e -n $n: not sliced: $(grep note "$out.err")" ;;
            esac
            # --json in slices: the same object as the serial one, byte for byte, and no fallback
            [ $n = 3 ] || continue
            MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e $n) "$MPILENS" report -q --json --no-critical-path "$dir" \
                >"$out.json" 2>"$out.json.err" ||
                { soft_fail "$name: mpirun ($e) -n $n mpilens report --json --no-critical-path: exit $?: $(head -3 "$out.json.err")"; continue; }
            cmp -s "$dir.sserial.json" "$out.json" ||
                soft_fail "$name: $e -n $n --json: the sliced report differs from the serial one: $(diff "$dir.sserial.json" "$out.json" | grep '^[<>]' | head -4 | tr '\n' ' ')"
            case $name in
            */cancel-run|bad/cut) ;;
            *) [ "$(grep -c "^mpilens report: process [0-9] of $n read" "$out.json.err")" = $n ] &&
                ! grep -q "process 0 analyses every rank" "$out.json.err" ||
                soft_fail "$name: $e -n $n --json: not sliced: $(grep -e note -e error "$out.json.err" | head -2)" ;;
            esac
        done
    done
done
e=$(echo $engines | cut -d' ' -f1)
MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 3) "$MPILENS" report -q --no-critical-path "$first" \
    >/dev/null 2>"$d/rlog.err" || soft_fail "$e: -n 3 report of p2p_patterns failed: $(head -3 "$d/rlog.err")"
assert_eq "0 rank-00000.mlt rank-00001.mlt
1 rank-00002.mlt
2 rank-00003.mlt" "$(grep '^mpilens report: process' "$d/rlog.err" | sed 's/^mpilens report: process \([0-9]\) of 3 read/\1/' | sort)" \
    "rank files each of 3 processes of the report read"
# what the slices cannot give yet is said once, and the result is the serial one's
timeout 60 $(launcher $e 2) "$MPILENS" report -q "$first" >/dev/null 2>"$d/cpnote.err" ||
    soft_fail "$e: -n 2 report with the critical path failed"
assert_eq 1 "$(grep -c 'critical path across slices is not yet written' "$d/cpnote.err")" "the critical path's note"

# export under mpirun: one file, the serial one's
"$MPILENS" export -q -o "$d/serial.json" "$first" || soft_fail "serial export failed"
for e in $engines; do
    timeout 60 $(launcher $e 3) "$MPILENS" export -q -o "$d/par-$e.json" "$first" >"$d/exp-$e.out" 2>&1 ||
        soft_fail "$e: mpirun -n 3 mpilens export failed: $(head -3 "$d/exp-$e.out")"
    cmp -s "$d/serial.json" "$d/par-$e.json" || soft_fail "$e: the export under mpirun -n 3 differs from the serial one"
done
# view under mpirun with the critical path: one page, the serial one's
# (process 0 writes it, a note says why); before, every process wrote the
# page and all but one failed on the existing file, so the job failed
"$MPILENS" view -q -o "$d/serial.html" "$first" || soft_fail "serial view failed"
for e in $engines; do
    (cd "$d" && timeout 60 $(launcher $e 3) "$MPILENS" view "$first") >"$d/view-$e.out" 2>&1 ||
        soft_fail "$e: mpirun -n 3 mpilens view failed: $(grep -m2 mpilens "$d/view-$e.out")"
    cmp -s "$d/serial.html" "$d/$(basename "$first").html" || soft_fail "$e: the view under mpirun -n 3 differs from the serial one"
    assert_eq 1 "$(grep -c '^mpilens view: wrote' "$d/view-$e.out")" "$e: pages written by mpirun -n 3 mpilens view"
    assert_eq 1 "$(grep -c 'critical path across slices is not yet written' "$d/view-$e.out")" "$e: the view's critical-path note"
    rm -f "$d/$(basename "$first").html"
    # a server under mpirun would keep the other processes spinning in MPI: refused, at once
    timeout 30 $(launcher $e 2) "$MPILENS" view --serve "$first" >"$d/serve-$e.out" 2>&1
    rc=$?
    [ $rc != 0 ] && [ $rc != 124 ] && [ "$(grep -c "^mpilens view: --serve is one process" "$d/serve-$e.out")" = 1 ] ||
        soft_fail "$e: mpirun -n 2 mpilens view --serve: exit $rc, want a refusal: $(head -2 "$d/serve-$e.out")"
done

# OTF2 under mpirun is written in slices: each process opens only its own
# rank files and writes their locations, process 0 the definitions.  The
# archive must read as the serial one (otf2-print: definitions, then the
# events), for every directory above and a threaded run (a location per
# thread; -n 3 leaves a process without a rank), P = 2, 3, 4, both engines.
otf2_dump() {  # archive.otf2 out
    { otf2-print -A "$1" | grep -v "^Trace identifier" && otf2-print -G "$1" && otf2-print "$1"; } >"$2" 2>&1
}
command -v otf2-print >/dev/null || soft_fail "otf2-print missing (setup.sh deps installs otf2-tools)"
tdirs=$dirs
impl=$(echo $engines | cut -d' ' -f1)
if "mpicc.$impl" -g -O1 -w -o "$TEST_TMP/thr" "$ROOT/tests/progs/threads.c" -lpthread; then
    recorded $impl 120 "$TEST_TMP/thr-run" 2 "$TEST_TMP/thr" >"$TEST_TMP/thr.out" 2>&1 || soft_fail "$impl: threads failed"
    grep -q '^SKIP' "$TEST_TMP/thr.out" || tdirs="$tdirs $TEST_TMP/thr-run"
else
    soft_fail "$impl: build threads"
fi
for dir in $tdirs; do
    name=${dir#$TEST_TMP/}
    "$MPILENS" export -q --format=otf2 -o "$dir.o2s/t" "$dir" >/dev/null 2>"$dir.o2s.err" ||
        { soft_fail "$name: serial OTF2 export failed: $(head -2 "$dir.o2s.err")"; continue; }
    otf2_dump "$dir.o2s/t.otf2" "$dir.o2s.txt" || { soft_fail "$name: otf2-print of the serial archive failed"; continue; }
    for e in $engines; do
        for n in 2 3 4; do
            o=$dir.o2-$e-$n
            timeout 60 $(launcher $e $n) "$MPILENS" export -q --format=otf2 -o "$o/t" "$dir" >"$o.out" 2>"$o.err"
            rc=$?
            [ $rc = 0 ] || { soft_fail "$name: mpirun ($e) -n $n mpilens export --format=otf2: exit $rc: $(head -3 "$o.err")"; continue; }
            otf2_dump "$o/t.otf2" "$o.txt" || { soft_fail "$name: $e -n $n: otf2-print failed: $(head -3 "$o.txt")"; continue; }
            cmp -s "$dir.o2s.txt" "$o.txt" ||
                soft_fail "$name: $e -n $n: the OTF2 archive differs from the serial one: $(diff "$dir.o2s.txt" "$o.txt" | head -4 | tr '\n' ' ')"
            cmp -s "$dir.o2s.err" "$o.err" ||
                soft_fail "$name: $e -n $n: export's stderr differs from the serial one: $(diff "$dir.o2s.err" "$o.err" | head -4 | tr '\n' ' ')"
        done
    done
done
grep -q 'rank-00002.mlt\|rank 2)' "$d/missing.o2s.err" 2>/dev/null || soft_fail "missing: the serial OTF2 export does not name rank 2's file"
grep -q 'rank-00001.mlt' "$d/cut.o2s.err" 2>/dev/null || soft_fail "cut: the serial OTF2 export does not name the cut file"

# each process opens only its own block of the rank files (rep_cancel: 5
# files, 3 processes: 2, 2 and 1)
e=$(echo $engines | cut -d' ' -f1)
MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 3) "$MPILENS" export -q --format=otf2 -o "$d/log-o2/t" "$second" \
    >/dev/null 2>"$d/log.err" || soft_fail "$e: -n 3 export of rep_cancel failed: $(head -3 "$d/log.err")"
assert_eq "0 rank-00000.mlt rank-00001.mlt
1 rank-00002.mlt rank-00003.mlt
2 rank-00004.mlt" "$(grep '^mpilens export: process' "$d/log.err" | sed 's/^mpilens export: process \([0-9]\) of 3 read/\1/' | sort)" \
    "rank files each of 3 processes read"

# clocks that need repair (rankfile_patch shifts a rank's measured
# offsets after the run): repaired across the slices in rounds, the sliced
# report and OTF2 archive the serial ones, no fallback to process 0
# (MPILENS_SLICE_LOG: the rounds logged, every process read its slice)
cc -O1 -o "$d/patch" "$ROOT/tests/progs/rankfile_patch.c" || fail "build rankfile_patch"
patch_all() {  # dir rank:init:final ... (offsets in microseconds)
    local dir=$1 x; shift
    for x in "$@"; do
        set -- $(echo "$x" | tr : ' ')
        "$d/patch" "$dir/rank-0000$1.mlt" init_offset=$(($2 * 1000)) final_offset=$(($3 * 1000)) >/dev/null ||
            fail "rankfile_patch $dir rank $1"
    done
}
kdirs=""
# one rank 5 ms behind (p2p_patterns, 4 ranks)
cp -r "$first" "$d/skew" && patch_all "$d/skew" 1:-5000:-5000 && kdirs="$kdirs $d/skew"
# several ranks in different slices, one ahead, one drifting (0.2 ms)
cp -r "$first" "$d/skew3" && patch_all "$d/skew3" 1:-5000:-5000 2:3000:2800 3:-2000:-2200 && kdirs="$kdirs $d/skew3"
# wildcard receives and probes (rep_probe, 4 ranks): one rank behind, one ahead
cp -r "$(echo $sdirs | cut -d' ' -f2)" "$d/skewp" && patch_all "$d/skewp" 1:-4000:-4000 3:2000:2000 && kdirs="$kdirs $d/skewp"
# chains of repairs back and forth across the slices: a token round a ring
# of 5 both ways, each rank further behind than its left neighbour
for impl in openmpi mpich; do
    have_impl $impl || continue
    p=$(prog $impl rep_clockchain) || continue
    recorded $impl 60 "$d/chain-$impl" 5 "$p" >"$d/chain-$impl.out" 2>&1 || { soft_fail "$impl: rep_clockchain failed"; continue; }
    patch_all "$d/chain-$impl" 1:-1000:-1000 2:-2000:-2000 3:-3000:-3000 4:-4000:-4000
    kdirs="$kdirs $d/chain-$impl"
done
for dir in $kdirs; do
    name=${dir#$TEST_TMP/}
    "$MPILENS" report -q --no-critical-path "$dir" >"$dir.rs.txt" 2>/dev/null || { soft_fail "$name: serial report failed"; continue; }
    grep -q 'repaired [1-9]' "$dir.rs.txt" || soft_fail "$name: the serial report repaired nothing"
    "$MPILENS" export -q --format=otf2 -o "$dir.o2s/t" "$dir" >/dev/null 2>"$dir.o2s.err" ||
        { soft_fail "$name: the serial OTF2 export failed: $(head -3 "$dir.o2s.err")"; continue; }
    otf2_dump "$dir.o2s/t.otf2" "$dir.o2s.txt" || soft_fail "$name: otf2-print of the serial archive failed"
    for e in $engines; do
        for n in 2 3 4; do
            out=$dir.rp.$e.$n
            MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e $n) "$MPILENS" report -q --no-critical-path "$dir" >"$out" 2>"$out.err"
            rc=$?
            [ $rc = 0 ] || { soft_fail "$name: $e -n $n: sliced report: exit $rc: $(head -3 "$out.err")"; continue; }
            cmp -s "$dir.rs.txt" "$out" ||
                soft_fail "$name: $e -n $n: the sliced report differs from the serial one: $(diff "$dir.rs.txt" "$out" | head -4 | tr '\n' ' ')"
            ! grep -q "process 0 analyses every rank" "$out.err" || soft_fail "$name: $e -n $n: not sliced: $(grep note "$out.err")"
            grep -q "^mpilens report: clocks repaired across slices in [1-8] round" "$out.err" ||
                soft_fail "$name: $e -n $n: the report's clocks were not repaired in slices: $(head -3 "$out.err")"
            if [ $n = 3 ]; then   # --json too: the clock section the serial one's (it had "passes": 1 against 3-5)
                "$MPILENS" report -q --json --no-critical-path "$dir" >"$dir.rs.json" 2>/dev/null
                MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e $n) "$MPILENS" report -q --json --no-critical-path "$dir" \
                    >"$out.json" 2>"$out.json.err" || soft_fail "$name: $e -n $n: sliced --json: exit $?"
                cmp -s "$dir.rs.json" "$out.json" ||
                    soft_fail "$name: $e -n $n --json: differs from the serial one: $(diff "$dir.rs.json" "$out.json" | grep '^[<>]' | head -2 | tr '\n' ' ')"
                ! grep -q "process 0 analyses every rank" "$out.json.err" || soft_fail "$name: $e -n $n --json: not sliced"
            fi
            [ "$(grep -c "^mpilens report: process [0-9] of $n read" "$out.err")" = $n ] ||
                soft_fail "$name: $e -n $n: not every process read its slice"
            o=$dir.o2-$e-$n
            MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e $n) "$MPILENS" export --format=otf2 -o "$o/t" "$dir" >"$o.out" 2>"$o.err"
            rc=$?
            [ $rc = 0 ] || { soft_fail "$name: $e -n $n: sliced OTF2 export: exit $rc: $(head -3 "$o.err")"; continue; }
            ! grep -q "process 0 exports the run alone" "$o.err" || soft_fail "$name: $e -n $n: export not sliced: $(grep note "$o.err")"
            grep -q "^mpilens export: clocks repaired across slices in [1-8] round" "$o.err" ||
                soft_fail "$name: $e -n $n: the export's clocks were not repaired in slices: $(head -3 "$o.err")"
            otf2_dump "$o/t.otf2" "$o.txt" || { soft_fail "$name: $e -n $n: otf2-print failed"; continue; }
            cmp -s "$dir.o2s.txt" "$o.txt" ||
                soft_fail "$name: $e -n $n: the OTF2 archive differs from the serial one: $(diff "$dir.o2s.txt" "$o.txt" | head -4 | tr '\n' ' ')"
        done
    done
done

# the view in slices (--no-critical-path): the serial page byte for byte,
# each process reading only its block; falls back to process 0 (a note)
# only where the sliced report does (rep_cancel's timing-dependent cancel,
# the cut file)
collmis=$(echo $sdirs | tr ' ' '\n' | grep collmis | head -1)
for dir in $dirs $collmis $kdirs; do
    name=${dir#$TEST_TMP/}
    "$MPILENS" view -q --no-critical-path -o "$dir.vs.html" "$dir" 2>"$dir.vs.err" ||
        { soft_fail "$name: serial view failed: $(head -2 "$dir.vs.err")"; continue; }
    for e in $engines; do
        for n in 2 3 4; do
            out=$dir.vp.$e.$n.html
            MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e $n) "$MPILENS" view -q --no-critical-path -o "$out" "$dir" \
                >"$out.err" 2>&1
            rc=$?
            [ $rc = 0 ] || { soft_fail "$name: mpirun ($e) -n $n mpilens view --no-critical-path: exit $rc: $(head -3 "$out.err")"; continue; }
            cmp -s "$dir.vs.html" "$out" || soft_fail "$name: $e -n $n: the sliced page differs from the serial one: $(cmp "$dir.vs.html" "$out")"
            [ "$(grep -c "^mpilens view: process [0-9] of $n read" "$out.err")" = $n ] ||
                soft_fail "$name: $e -n $n: the view was not read in slices: $(head -3 "$out.err")"
            case $name in
            */cancel-run|bad/cut) ;;
            *) ! grep -q "process 0 reads every rank" "$out.err" ||
                soft_fail "$name: $e -n $n: view not sliced: $(grep note "$out.err")" ;;
            esac
            case " $kdirs " in
            *" $dir "*) grep -q "^mpilens view: clocks repaired across slices in [1-8] round" "$out.err" ||
                soft_fail "$name: $e -n $n: the view's clocks were not repaired in slices: $(head -3 "$out.err")" ;;
            esac
            rm -f "$out"
        done
    done
done
MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 3) "$MPILENS" view -q --no-critical-path -o "$d/vlog.html" "$second" \
    >/dev/null 2>"$d/vlog.err" || soft_fail "$e: -n 3 view of rep_cancel failed: $(head -3 "$d/vlog.err")"
assert_eq "0 rank-00000.mlt rank-00001.mlt
1 rank-00002.mlt rank-00003.mlt
2 rank-00004.mlt" "$(grep '^mpilens view: process' "$d/vlog.err" | sed 's/^mpilens view: process \([0-9]\) of 3 read/\1/' | sort)" \
    "rank files each of 3 processes of the view read"

# bad input is named once, by one process (the serial report names it once too)
c=$(grep -c 'rank-00002.mlt\|rank 2)' "$d/missing.openmpi.3.txt" 2>/dev/null || true)
s=$(grep -c 'rank-00002.mlt\|rank 2)' "$d/missing.serial.txt")
[ "$s" -ge 1 ] || soft_fail "missing: the serial report does not name rank 2's file"
assert_eq "$s" "$c" "lines naming the missing file (parallel vs serial)"
grep -q 'rank-00001.mlt' "$d/cut.serial.txt" || soft_fail "cut: the serial report does not name the cut file"

e=$(echo $engines | cut -d' ' -f1)
# the analysis is never recorded, even under a preloaded runtime
rt=$(runtime_of $e)
recorded $e 60 "$d/rec" 2 "$MPILENS" report -q "$first" >"$d/rec.txt" 2>"$d/rec.err"
[ $? = 0 ] || soft_fail "$e: parallel report under a preloaded runtime failed: $(head -3 "$d/rec.err")"
cmp -s "$first.serial.txt" "$d/rec.txt" || soft_fail "$e: parallel report under a preloaded runtime differs"
[ -z "$(ls "$d/rec" 2>/dev/null)" ] || soft_fail "$e: the analysis itself was recorded into $d/rec: $(ls "$d/rec" | head -3)"

# a process of the analysis dies: the job fails, no hang
for e in $engines; do
    timeout 60 $(launcher $e 2) bash -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; [ "$r" = 1 ] && kill -9 $$; exec "$0" report -q "$1"' \
        "$MPILENS" "$first" >"$d/die-$e.txt" 2>"$d/die-$e.err"
    rc=$?
    [ $rc != 124 ] || soft_fail "$e: a dead analysis process left the job hanging"
    [ $rc != 0 ] || soft_fail "$e: a dead analysis process, yet the job exited 0"
    # the same for the sliced report and export, whose processes wait for each other
    timeout 60 $(launcher $e 3) bash -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; [ "$r" = 2 ] && kill -9 $$; exec "$0" report -q --no-critical-path "$1"' \
        "$MPILENS" "$first" >"$d/die-sl-$e.txt" 2>"$d/die-sl-$e.err"
    rc=$?
    [ $rc != 124 ] || soft_fail "$e: a dead process of the sliced report left the job hanging"
    [ $rc != 0 ] || soft_fail "$e: a dead process of the sliced report, yet the job exited 0"

    timeout 60 $(launcher $e 3) bash -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; [ "$r" = 2 ] && kill -9 $$; exec "$0" export -q --format=otf2 -o "$2" "$1"' \
        "$MPILENS" "$first" "$d/die-o2-$e/t" >"$d/die-o2-$e.txt" 2>"$d/die-o2-$e.err"
    rc=$?
    [ $rc != 124 ] || soft_fail "$e: a dead process of the sliced export left the job hanging"
    [ $rc != 0 ] || soft_fail "$e: a dead process of the sliced export, yet the job exited 0"
done

# no engine next to mpilens: a one-line error, exit 1
mkdir -p "$d/bin"
cp "$MPILENS" "$d/bin/mpilens"
timeout 60 $(launcher $e 2) "$d/bin/mpilens" report -q "$first" >"$d/noeng.txt" 2>"$d/noeng.err"
rc=$?
[ $rc != 0 ] || soft_fail "without mpilens-mpi-$e: exit 0"
assert_contains "$(cat "$d/noeng.err")" "mpilens report: started by mpirun as 2 processes, but the parallel analysis for $e" "stderr without the engine"
[ -s "$d/noeng.txt" ] && soft_fail "without the engine, something was written to stdout"
true
