# mpilens dump on rank files cut at many byte offsets (empty, inside the
# header, at its end, inside tables, at and inside chunk headers, mid-chunk,
# one byte short): exit status 0 or a clean error (< 128, no hang), a warning
# naming the file on stderr when events are lost, and only events that are in the uncut file; one
# byte short still has every event (the events shown are always the first ones
# of the uncut file, exactly).  A cut file next to a good one does not
# hide the good one's events.  A header cut next to an intact file:
# report --failures and mpilens top say "unreadable" and end; top on an empty
# directory says so and exits 1 (--wait waits).
# timeout: 300
need_mpilens
p=$(prog openmpi manycalls) || exit 1
need_runtime openmpi
src=$TEST_TMP/src
mkdir -p "$src"
(cd "$src" && rt_mpi openmpi "$src/run" 2 "$p" 40000) >"$src/out" 2>"$src/err" ||
    fail "manycalls under the runtime failed: $(head -c 300 "$src/err")"
f=$src/run/rank-00000.mlt
[ -s "$f" ] || fail "no rank file $f"
"$MPILENS" dump "$src/run" >"$src/full.txt" 2>"$src/full.err" || fail "mpilens dump of the uncut run failed"
# reference: the uncut rank 0 file alone (times are relative to the files dumped)
mkdir -p "$src/only0"
cp "$f" "$src/only0/"
"$MPILENS" dump "$src/only0" 2>"$src/only0.err" | grep -av '^#' >"$src/only0.txt" ||
    fail "mpilens dump of the uncut rank 0 file failed"
full0=$(wc -l <"$src/only0.txt")
[ "$full0" -gt 40000 ] || soft_fail "uncut rank 0 has only $full0 events (expected > 40000)"
size=$(stat -c %s "$f")
# chunk headers: where the chunk magic "CHNK" is (at 4096-aligned offsets)
chunks=$(grep -obUaP 'CHNK' "$f" | cut -d: -f1 | awk '$1 % 4096 == 0' | head -4 | tr '\n' ' ')
note "rank file $size bytes, chunks at $chunks"
offsets="0 1 8 100 5000 8191 8192 8193 12288 $((size / 4)) $((size / 3)) $((size / 2)) $((2 * size / 3)) $((size - 4096)) $((size - 1))"
for c in $chunks; do offsets="$offsets $c $((c + 4)) $((c + 63)) $((c + 64)) $((c + 64 + 13)) $((c + 1000)) $((c + 131072))"; done
for off in $offsets; do
    [ "$off" -ge 0 ] && [ "$off" -lt "$size" ] || continue
    d=$TEST_TMP/cut-$off
    mkdir -p "$d"
    head -c "$off" "$f" >"$d/rank-00000.mlt"
    timeout 60 "$MPILENS" dump "$d" >"$d/out" 2>"$d/err"
    rc=$?
    if [ $rc -eq 124 ]; then soft_fail "cut at $off: mpilens dump hung"; continue; fi
    if [ $rc -ge 128 ]; then soft_fail "cut at $off: mpilens dump crashed (exit $rc): $(head -c 200 "$d/err")"; continue; fi
    # one thread: what a cut file shows is the beginning of what the uncut one shows
    n=$(grep -av '^#' "$d/out" | wc -l)
    # a cut that loses events names the file; one in the space the runtime
    # leaves unused at the end of a file (its punched-out spare chunks, kept
    # so the file never shrinks under a forked child: docs/FORMAT.md) loses
    # nothing and needs no warning
    [ "$n" -eq "$full0" ] || grep -q 'rank-00000.mlt' "$d/err" ||
        soft_fail "cut at $off of $size (exit $rc, $n of $full0 events shown): no warning naming rank-00000.mlt on stderr"
    if ! head -n "$n" "$src/only0.txt" | cmp -s - <(grep -av '^#' "$d/out"); then
        soft_fail "cut at $off: the $n events shown are not the first $n of the uncut file: $(grep -av '^#' "$d/out" | head -n "$n" | diff - <(head -n "$n" "$src/only0.txt") | grep -m2 '^[<>]' | tr '\n' '|' | head -c 200)"
    fi
    note "cut at $off: exit $rc, $n events, stderr: $(head -1 "$d/err" | head -c 120)"
    if [ "$off" -eq $((size - 1)) ]; then
        assert_eq "$full0" "$n" "cut one byte short: events"
    fi
done
# a cut file next to an intact one
d=$TEST_TMP/mixed
mkdir -p "$d"
head -c $((size / 2)) "$f" >"$d/rank-00000.mlt"
cp "$src/run/rank-00001.mlt" "$d/"
timeout 60 "$MPILENS" dump "$d" >"$d/out" 2>"$d/err"
rc=$?
[ $rc -lt 124 ] || soft_fail "mixed directory: mpilens dump exit $rc"
want=$(grep -av '^#' "$src/full.txt" | awk '$1 == 1' | wc -l)
got=$(grep -av '^#' "$d/out" | awk '$1 == 1' | wc -l)
assert_eq "$want" "$got" "mixed directory: events of the intact rank 1"
# A rank file cut inside its header next to an intact one (a finished run):
# report --failures says it is unreadable and why (not "no rank file", not
# "no failure: every rank called MPI_Finalize"); mpilens top shows the last
# state once, names the file, and exits.  Alone, or an empty directory:
# mpilens top says so and exits 1 (--wait waits for a job to start).
for off in 8 100; do
    d=$TEST_TMP/hdr-$off
    mkdir -p "$d"
    head -c "$off" "$f" >"$d/rank-00000.mlt"
    cp "$src/run/rank-00001.mlt" "$d/"
    # top first, right after the cut: the file is new, not yet known to be
    # left alone (top must wait for that, not show a state without it)
    timeout 20 "$MPILENS" top "$d" >"$d/top" 2>"$d/top.err"
    rc=$?
    [ $rc = 0 ] || soft_fail "header cut at $off: mpilens top exit $rc (124: it never ended)"
    grep -q "mpilens top: .*rank-00000.mlt is cut before the end of its header: unreadable" "$d/top.err" ||
        soft_fail "header cut at $off: mpilens top does not name the unreadable file: $(head -c 300 "$d/top.err")"
    # the ranks counted are both, the unreadable one too (before: "1 rank: 1 finalized, 1 unreadable")
    grep -q "2 ranks: 1 finalized, 1 unreadable" "$d/top" ||
        soft_fail "header cut at $off: mpilens top's last state: $(head -2 "$d/top" | tr '\n' '|')"
    timeout 60 "$MPILENS" report --failures "$d" >"$d/rep" 2>&1
    rc=$?
    [ $rc -lt 124 ] || soft_fail "header cut at $off: report --failures exit $rc"
    grep -q "rank 0: its rank file is UNREADABLE (.*rank-00000.mlt: is cut before the end of its header)" "$d/rep" ||
        soft_fail "header cut at $off: report --failures does not say rank 0's file is unreadable: $(head -c 400 "$d/rep")"
    ! grep -q "every rank called MPI_Finalize\|rank 0: no rank file" "$d/rep" ||
        soft_fail "header cut at $off: report --failures: $(grep -m1 'every rank called\|no rank file' "$d/rep")"
    rm "$d/rank-00001.mlt"
    timeout 20 "$MPILENS" top "$d" >"$d/top1" 2>"$d/top1.err"
    rc=$?
    [ $rc = 1 ] && grep -q "^mpilens top: .*: no readable rank file (1 unreadable)" "$d/top1.err" ||
        soft_fail "header cut at $off, alone: mpilens top exit $rc (want 1): $(tail -2 "$d/top1.err")"
done
e=$TEST_TMP/empty
mkdir -p "$e"
timeout 20 "$MPILENS" top "$e" >"$e.out" 2>"$e.err"
rc=$?
[ $rc = 1 ] && grep -q "^mpilens top: .*empty holds no rank files (rank-N.mlt) and no job is recording there; --wait" "$e.err" ||
    soft_fail "empty directory: mpilens top exit $rc (want 1): $(cat "$e.err")"
timeout 3 "$MPILENS" top --wait "$e" >"$e.out" 2>"$e.err"
rc=$?
[ $rc = 124 ] || soft_fail "empty directory: mpilens top --wait exit $rc (want it still waiting after 3 s)"
