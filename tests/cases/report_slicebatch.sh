# report_slicebatch: the sliced analysis (`mpirun -n P mpilens report
# --no-critical-path`, `export --format=otf2`) exchanges the sends that cross
# slices in bounded batches during its read (docs/PARALLEL.md, "Bounded
# batches"), and cuts the slices by the rank files' weight in events, not by
# their count ("Slices balanced by events").
# - Batches: with MPILENS_SLICE_BATCH=1 (a round ends at every crossing send)
#   the sliced report and OTF2 archive of p2p_patterns (4 ranks, recorded by
#   both MPIs), and of a copy whose rank 1 is 5 ms behind (clocks repaired
#   across the slices in rounds), are the serial ones, P = 3, both engines;
#   the engine's MPILENS_XCH_STATS line says the batches were many and the
#   crossing sends held at once few.  On a synthetic halo run (bench/gen_ranks,
#   8 ranks, thousands of crossing sends) at P = 2 the sends held at once are
#   at most 2 x 16 (and one event's) with MPILENS_SLICE_BATCH=16, over a
#   thousand with the default batch (before the batches: all of them, held
#   until the end of the read), and the report is the serial one either way.
# - The sliced view's page: process 0 gets the calls' and messages' columns
#   in rounds of at most MPILENS_SLICE_BATCH x 80 bytes and writes the page
#   as they come (before: it gathered every process's columns whole): with
#   batches of 1 the pages of p2p_patterns (both MPIs, P = 3, both engines)
#   are the serial ones, sent in many rounds of at most 80 bytes; on the
#   halo run with batches of 16, at most 1,280 bytes at once.
#   On a synthetic run of MPI_Allreduce only (gen_ranks ... colls, 8 ranks,
#   2,500 instances spanning both slices) at P = 2 the instances a process
#   holds at once are at most 40 with MPILENS_SLICE_BATCH=16, over a
#   thousand with the default batch (before: all of them, held until the
#   end of the read, and not counted), the report the serial one.
# - The sliced view's collective instances: each process sorts those it
#   completed and process 0 merges them in rounds (before: it gathered every
#   process's whole).  On a synthetic run of MPI_Allreduce on two
#   communicators of half the ranks each (gen_ranks ... halves, 8 ranks,
#   1,250 instances each; process 1 completes the upper half's), the page at
#   P = 2 is the serial one, with process 0 holding at most 16 of process
#   1's instances at once with MPILENS_SLICE_BATCH=16 and all 1,250 with the
#   default batch; at P = 3 (default batch) the page is the serial one too;
#   both engines.
# - Balance: on a synthetic run whose ranks 0 and 1 make 10 times the calls,
#   process 0 of 2 reads only those two files (by count it read four), and
#   the report is the serial one; MPILENS_SLICE_BY=ranks gives the old cut.
# timeout: 400
need_mpilens
engines=""
for e in openmpi mpich; do
    have_impl $e && [ -x "$ROOT/build/bin/mpilens-mpi-$e" ] && engines="$engines $e"
done
[ -n "$engines" ] || fail "no mpilens-mpi-<impl> built (run make)"
launcher() {  # impl n
    case $1 in
    openmpi) echo "mpirun.openmpi --oversubscribe -n $2" ;;
    mpich) echo "mpirun.mpich -n $2" ;;
    esac
}
otf2_dump() {  # archive.otf2 out
    { otf2-print -A "$1" | grep -v "^Trace identifier" && otf2-print -G "$1" && otf2-print "$1"; } >"$2" 2>&1
}
command -v otf2-print >/dev/null || fail "otf2-print missing (setup.sh deps installs otf2-tools)"
# stats FILE: "batches held" summed/maxed over the processes' MPILENS_XCH_STATS lines
stats() {
    sed -n 's/^mpilens-mpi: process .* \([0-9]*\) batches, at most \([0-9]*\) crossing sends held;.*$/\1 \2/p' "$1" |
        awk '{b += $1; if ($2 > h) h = $2; n++} END {print n + 0, b + 0, h + 0}'
}
cc -O1 -o "$TEST_TMP/patch" "$ROOT/tests/progs/rankfile_patch.c" || fail "build rankfile_patch"
cc -O2 -o "$TEST_TMP/gen" "$ROOT/bench/gen_ranks.c" || fail "build gen_ranks"

dirs=""
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    "mpicc.$impl" -g -O1 -w -o "$d/pp" "$ROOT/tests/progs/p2p_patterns.c" || { soft_fail "$impl: build p2p_patterns"; continue; }
    rt=$(runtime_of $impl)
    case $impl in
    openmpi) timeout -k 2 120 mpirun.openmpi --oversubscribe -x LD_PRELOAD="$rt" -x MPILENS_DIR="$d/pp-run" -n 4 "$d/pp" ;;
    mpich) timeout -k 2 120 mpirun.mpich -genv LD_PRELOAD "$rt" -genv MPILENS_DIR "$d/pp-run" -n 4 "$d/pp" ;;
    esac >"$d/pp.out" 2>&1 || { soft_fail "$impl: p2p_patterns failed"; continue; }
    cp -r "$d/pp-run" "$d/skew-run"
    "$TEST_TMP/patch" "$d/skew-run/rank-00001.mlt" init_offset=-5000000 final_offset=-5000000 >/dev/null ||
        fail "rankfile_patch"
    dirs="$dirs $d/pp-run $d/skew-run"
done
[ -n "$dirs" ] || fail "no run recorded"

# batches of one record: every crossing send its own round
for dir in $dirs; do
    name=${dir#$TEST_TMP/}
    "$MPILENS" report -q --no-critical-path "$dir" >"$dir.s.txt" 2>/dev/null || { soft_fail "$name: serial report failed"; continue; }
    "$MPILENS" export -q --format=otf2 -o "$dir.o2s/t" "$dir" >/dev/null 2>&1 || { soft_fail "$name: serial export failed"; continue; }
    otf2_dump "$dir.o2s/t.otf2" "$dir.o2s.txt" || soft_fail "$name: otf2-print of the serial archive failed"
    for e in $engines; do
        out=$dir.$e
        MPILENS_SLICE_BATCH=1 MPILENS_XCH_STATS=1 MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 3) \
            "$MPILENS" report -q --no-critical-path "$dir" >"$out.txt" 2>"$out.err" ||
            { soft_fail "$name: $e -n 3 sliced report: exit $?: $(head -3 "$out.err")"; continue; }
        cmp -s "$dir.s.txt" "$out.txt" ||
            soft_fail "$name: $e: the sliced report in batches of 1 differs: $(diff "$dir.s.txt" "$out.txt" | head -4 | tr '\n' ' ')"
        ! grep -q "process 0 analyses every rank" "$out.err" || soft_fail "$name: $e: not sliced: $(grep note "$out.err")"
        case $name in
        */skew-run) grep -q "^mpilens report: clocks repaired across slices in [1-8] round" "$out.err" ||
            soft_fail "$name: $e: the clocks were not repaired in slices" ;;
        esac
        read -r np nb held <<<"$(stats "$out.err")"
        assert_eq 3 "$np" "$name: $e: processes that gave their batches"
        [ "$nb" -ge 30 ] || soft_fail "$name: $e: $nb batches in all with MPILENS_SLICE_BATCH=1, want many"
        # one record a peer and round, plus what one event adds; 2 peers out, 2 in
        assert_le "$held" 8 "$name: $e: crossing sends held at once with batches of 1"
        # the view's page: its columns to process 0 in rounds of one record's 80 bytes
        v=$dir.v-$e
        [ -f "$dir.vs.html" ] || "$MPILENS" view -q --no-critical-path -o "$dir.vs.html" "$dir" 2>/dev/null ||
            soft_fail "$name: serial view failed"
        MPILENS_SLICE_BATCH=1 MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 3) \
            "$MPILENS" view -q --no-critical-path -o "$v.html" "$dir" >/dev/null 2>"$v.err" ||
            { soft_fail "$name: $e -n 3 sliced view: exit $?: $(head -3 "$v.err")"; continue; }
        ! grep -q "process 0 reads every rank" "$v.err" || soft_fail "$name: $e: view not sliced: $(grep note "$v.err")"
        cmp -s "$dir.vs.html" "$v.html" || soft_fail "$name: $e: the sliced page in rounds of 80 bytes differs: $(cmp "$dir.vs.html" "$v.html")"
        read -r vr vh <<<"$(sed -n 's/^mpilens view: columns to process 0 in \([0-9]*\) rounds\{0,1\}, at most \([0-9]*\) bytes at once$/\1 \2/p' "$v.err")"
        [ -n "$vr" ] || { soft_fail "$name: $e: no rounds of columns logged: $(grep -v 'process [0-9] of' "$v.err" | head -2)"; continue; }
        [ "$vr" -ge 20 ] || soft_fail "$name: $e: the page's columns in $vr rounds with MPILENS_SLICE_BATCH=1, want many"
        assert_le "$vh" 80 "$name: $e: bytes of columns at process 0 at once with batches of 1"
        case $name in */skew-run) ;; *) continue ;; esac   # the export: where its clocks are repaired in rounds
        o=$dir.o2-$e
        MPILENS_SLICE_BATCH=1 MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 3) \
            "$MPILENS" export -q --format=otf2 -o "$o/t" "$dir" >"$o.out" 2>"$o.err" ||
            { soft_fail "$name: $e -n 3 sliced export: exit $?: $(head -3 "$o.err")"; continue; }
        ! grep -q "process 0 exports the run alone" "$o.err" || soft_fail "$name: $e: export not sliced"
        otf2_dump "$o/t.otf2" "$o.txt" || { soft_fail "$name: $e: otf2-print failed"; continue; }
        cmp -s "$dir.o2s.txt" "$o.txt" ||
            soft_fail "$name: $e: the OTF2 archive in batches of 1 differs: $(diff "$dir.o2s.txt" "$o.txt" | head -4 | tr '\n' ' ')"
    done
done

# a run with thousands of crossing sends: held at once within the batch
e=$(echo $engines | cut -d' ' -f1)
g=$TEST_TMP/halo
"$TEST_TMP/gen" "$g" 8 60000 >/dev/null || fail "gen_ranks"
"$MPILENS" report -q --no-critical-path "$g" >"$g.s.txt" 2>/dev/null || fail "serial report of the halo run failed"
for b in 16 default; do
    env=MPILENS_XCH_STATS=1; [ $b = default ] || env="$env MPILENS_SLICE_BATCH=$b"
    env $env timeout 60 $(launcher $e 2) "$MPILENS" report -q --no-critical-path "$g" >"$g.$b.txt" 2>"$g.$b.err" ||
        { soft_fail "halo: $e -n 2, batch $b: exit $?: $(head -3 "$g.$b.err")"; continue; }
    cmp -s "$g.s.txt" "$g.$b.txt" || soft_fail "halo: batch $b: the sliced report differs from the serial one"
    read -r np nb held <<<"$(stats "$g.$b.err")"
    assert_eq 2 "$np" "halo: batch $b: processes that gave their batches"
    note "halo, batch $b: $nb batches, at most $held crossing sends held"
    if [ $b = 16 ]; then
        assert_le "$held" 34 "halo: crossing sends held at once with batches of 16 (16 out, 16 in, one event's more)"
        [ "$nb" -ge 50 ] || soft_fail "halo: only $nb batches with MPILENS_SLICE_BATCH=16"
    else
        [ "$held" -ge 1000 ] || soft_fail "halo: only $held crossing sends in a default batch: the run is too small to show the bound"
    fi
done

# the halo run's page: the serial one, its columns at process 0 within a round's 1,280 bytes
"$MPILENS" view -q --no-critical-path -o "$g.vs.html" "$g" 2>/dev/null || fail "serial view of the halo run failed"
MPILENS_SLICE_BATCH=16 MPILENS_SLICE_LOG=1 timeout 60 $(launcher $e 2) "$MPILENS" view -q --no-critical-path \
    -o "$g.v.html" "$g" >/dev/null 2>"$g.v.err" || soft_fail "halo: $e -n 2 sliced view: exit $?: $(head -3 "$g.v.err")"
cmp -s "$g.vs.html" "$g.v.html" || soft_fail "halo: the sliced page in rounds differs from the serial one"
read -r vr vh <<<"$(sed -n 's/^mpilens view: columns to process 0 in \([0-9]*\) rounds\{0,1\}, at most \([0-9]*\) bytes at once$/\1 \2/p' "$g.v.err")"
note "halo view, batch 16: columns in ${vr:-?} rounds, at most ${vh:-?} bytes at process 0"
[ -n "$vr" ] && [ "$vr" -ge 100 ] || soft_fail "halo: the page's columns in ${vr:-no logged} rounds, want hundreds"
assert_le "${vh:-999999}" 1280 "halo: bytes of columns at process 0 at once with batches of 16"
rm -f "$g.vs.html" "$g.v.html"
# a run of collectives spanning the slices: the instances held at once within the batch
c=$TEST_TMP/colls
"$TEST_TMP/gen" "$c" 8 40000 colls >/dev/null || fail "gen_ranks colls"
"$MPILENS" report -q --no-critical-path "$c" >"$c.s.txt" 2>/dev/null || fail "serial report of the colls run failed"
for b in 16 default; do
    env=MPILENS_XCH_STATS=1; [ $b = default ] || env="$env MPILENS_SLICE_BATCH=$b"
    env $env timeout 60 $(launcher $e 2) "$MPILENS" report -q --no-critical-path "$c" >"$c.$b.txt" 2>"$c.$b.err" ||
        { soft_fail "colls: $e -n 2, batch $b: exit $?: $(head -3 "$c.$b.err")"; continue; }
    cmp -s "$c.s.txt" "$c.$b.txt" || soft_fail "colls: batch $b: the sliced report differs from the serial one"
    held=$(sed -n 's/^mpilens-mpi: process .* at most \([0-9]*\) collective instances held$/\1/p' "$c.$b.err" | sort -n | tail -1)
    [ -n "$held" ] || { soft_fail "colls: batch $b: no count of the collective instances held"; continue; }
    note "colls, batch $b: at most $held collective instances held"
    if [ $b = 16 ]; then
        assert_le "$held" 40 "colls: collective instances held at once with batches of 16"
    else
        [ "$held" -ge 1000 ] || soft_fail "colls: only $held instances held with the default batch: the run is too small to show the bound"
    fi
done

# the view's collective instances merged at process 0 in rounds, both engines
h=$TEST_TMP/halves
"$TEST_TMP/gen" "$h" 8 20000 halves >/dev/null || fail "gen_ranks halves"
"$MPILENS" view -q --no-critical-path -o "$h.s.html" "$h" 2>/dev/null || fail "serial view of the halves run failed"
for ee in $engines; do
    for b in 16 default p3; do
        env=MPILENS_SLICE_LOG=1; n=2
        case $b in 16) env="$env MPILENS_SLICE_BATCH=$b" ;; p3) n=3 ;; esac
        v=$h.$ee.$b
        env $env timeout 60 $(launcher $ee $n) "$MPILENS" view -q --no-critical-path -o "$v.html" "$h" >/dev/null 2>"$v.err" ||
            { soft_fail "halves: $ee -n $n, batch $b: exit $?: $(head -3 "$v.err")"; continue; }
        ! grep -q "process 0 reads every rank" "$v.err" || soft_fail "halves: $ee batch $b: view not sliced"
        cmp -s "$h.s.html" "$v.html" || soft_fail "halves: $ee -n $n, batch $b: the sliced page differs from the serial one: $(cmp "$h.s.html" "$v.html")"
        read -r kr kh <<<"$(sed -n 's/^mpilens view: collective instances merged at process 0 in \([0-9]*\) rounds\{0,1\}, at most \([0-9]*\) of the other processes. at once$/\1 \2/p' "$v.err")"
        [ -n "$kr" ] || { soft_fail "halves: $ee batch $b: no rounds of collective instances logged"; continue; }
        note "halves view, $ee -n $n batch $b: instances merged in $kr rounds, at most $kh of the others' at process 0"
        case $b in
        16) assert_le "$kh" 16 "halves: $ee: instances of process 1 held by process 0 at once with batches of 16"
            [ "$kr" -ge 300 ] || soft_fail "halves: $ee: the instances merged in only $kr rounds with MPILENS_SLICE_BATCH=16" ;;
        *) assert_eq 1250 "$kh" "halves: $ee -n $n: instances of process 1 held by process 0 with the default batch" ;;
        esac
        rm -f "$v.html"
    done
done
rm -f "$h.s.html"

# slices balanced by events: ranks 0 and 1 make 10 times the calls
k=$TEST_TMP/skewed
"$TEST_TMP/gen" "$k" 8 80000 2:10 >/dev/null || fail "gen_ranks 2:10"
"$MPILENS" report -q --no-critical-path "$k" >"$k.s.txt" 2>/dev/null || fail "serial report of the skewed run failed"
for by in events ranks; do
    env=MPILENS_SLICE_LOG=1; [ $by = ranks ] && env="$env MPILENS_SLICE_BY=ranks"
    env $env timeout 60 $(launcher $e 2) "$MPILENS" report -q --no-critical-path "$k" >"$k.$by.txt" 2>"$k.$by.err" ||
        { soft_fail "skewed: $e -n 2 by $by: exit $?: $(head -3 "$k.$by.err")"; continue; }
    cmp -s "$k.s.txt" "$k.$by.txt" || soft_fail "skewed: by $by: the sliced report differs from the serial one"
    want="0 rank-00000.mlt rank-00001.mlt
1 rank-00002.mlt rank-00003.mlt rank-00004.mlt rank-00005.mlt rank-00006.mlt rank-00007.mlt"
    [ $by = ranks ] && want="0 rank-00000.mlt rank-00001.mlt rank-00002.mlt rank-00003.mlt
1 rank-00004.mlt rank-00005.mlt rank-00006.mlt rank-00007.mlt"
    assert_eq "$want" "$(grep '^mpilens report: process' "$k.$by.err" | sed 's/^mpilens report: process \([0-9]\) of 2 read/\1/' | sort)" \
        "skewed: the files each process read, slices by $by"
done
true
