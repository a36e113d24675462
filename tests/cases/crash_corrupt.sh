# mpilens dump on rank files with bytes overwritten (0xff and 0x00 runs) in
# the header, in the tables, in chunk headers and inside records never
# crashes or hangs (exit < 128); where valgrind is installed, a few of them
# run under it with no invalid read.
# timeout: 400
need_mpilens
p=$(prog openmpi manycalls) || exit 1
need_runtime openmpi
src=$TEST_TMP/src
mkdir -p "$src"
(cd "$src" && rt_mpi openmpi "$src/run" 2 "$p" 30000) >"$src/out" 2>"$src/err" ||
    fail "manycalls under the runtime failed: $(head -c 300 "$src/err")"
f=$src/run/rank-00000.mlt
[ -s "$f" ] || fail "no rank file $f"
size=$(stat -c %s "$f")
chunks=$(grep -obUaP 'CHNK' "$f" | cut -d: -f1 | awk '$1 % 4096 == 0' | head -3 | tr '\n' ' ')
offsets=""
for ((o = 0; o < 512; o += 8)); do offsets="$offsets $o"; done
for o in 1024 2048 4096 8192 8200 12288 16384; do offsets="$offsets $o"; done
for c in $chunks; do
    for ((o = 0; o < 64; o += 4)); do offsets="$offsets $((c + o))"; done
    for o in 64 72 80 88 96 200 1000 5000 100000; do offsets="$offsets $((c + o))"; done
done
d=$TEST_TMP/c
mkdir -p "$d"
crashes=0
runs=0
for off in $offsets; do
    [ "$off" -lt "$((size - 8))" ] || continue
    for pat in '\xff\xff\xff\xff\xff\xff\xff\x7f' '\x00\x00\x00\x00\x00\x00\x00\x00'; do
        cp "$f" "$d/rank-00000.mlt"
        printf "$pat" | dd of="$d/rank-00000.mlt" bs=1 seek="$off" conv=notrunc status=none
        timeout 20 "$MPILENS" dump "$d" >/dev/null 2>"$d/err"
        rc=$?
        runs=$((runs + 1))
        if [ $rc -ge 124 ]; then
            crashes=$((crashes + 1))
            [ $crashes -le 5 ] && soft_fail "bytes $pat at offset $off: mpilens dump exit $rc ($( [ $rc = 124 ] && echo hung || echo crashed))"
        fi
    done
done
note "$runs corrupted files, $crashes crashes or hangs"
[ $crashes -le 5 ] || soft_fail "... $crashes crashes or hangs in all"
if command -v valgrind >/dev/null; then
    for off in 16 40 64 $chunks; do
        cp "$f" "$d/rank-00000.mlt"
        printf '\xff\xff\xff\xff\xff\xff\xff\x7f' | dd of="$d/rank-00000.mlt" bs=1 seek="$((off + 8))" conv=notrunc status=none
        timeout 120 valgrind -q --error-exitcode=99 "$MPILENS" dump "$d" >/dev/null 2>"$d/vg.err"
        rc=$?
        [ $rc -ne 99 ] || soft_fail "valgrind: invalid memory use in mpilens dump with bytes overwritten at $((off + 8)): $(grep -m2 '==' "$d/vg.err" | tr '\n' ' ' | head -c 300)"
        [ $rc -lt 124 ] || soft_fail "valgrind run with bytes at $((off + 8)): exit $rc"
    done
fi
