#!/usr/bin/env bash
# Bad input never crashes report or export, and every message names the
# file and what is wrong; whatever is readable is still analysed:
# an empty directory, a missing directory, a file cut inside its header, a
# file cut in its events, corrupted events (the file named, "corrupt
# record"), another format version, another
# job, missing ranks, a duplicate rank, random damage.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
"${CC:-gcc}" -O1 -o "$tmp/patch" "$root/tests/progs/rankfile_patch.c" || { echo "FAIL: build rankfile_patch"; exit 1; }
if command -v mpicc.openmpi >/dev/null && [ -f "$root/build/lib/mpilens/libmpilens-openmpi.so" ]; then
    impl=openmpi; run=(mpirun.openmpi --oversubscribe)
elif command -v mpicc.mpich >/dev/null && [ -f "$root/build/lib/mpilens/libmpilens-mpich.so" ]; then
    impl=mpich; run=(mpirun.mpich)
else
    echo "FAIL: no MPI runtime built"; exit 1
fi
mpicc.$impl -g -O1 -w -o "$tmp/pp" "$root/tests/progs/p2p_patterns.c" || { echo "FAIL: build"; exit 1; }
MPILENS_DIR=$tmp/good LD_PRELOAD=$root/build/lib/mpilens/libmpilens-$impl.so timeout 120 "${run[@]}" -n 4 "$tmp/pp" \
    >"$tmp/out" 2>&1 || { echo "FAIL: program failed"; cat "$tmp/out"; exit 1; }

# run report (text and JSON) and export on dir; the exit status must be 0
# or 1, never a crash; the messages must contain each of the patterns
check() {  # name dir want-status pattern...
    local name=$1 dir=$2 want=$3; shift 3
    local st out=$tmp/$name.out
    "$MPILENS" report "$dir" >"$out" 2>&1; st=$?
    if [ $st -ne "$want" ]; then echo "FAIL $name: report exit status $st, want $want"; head -5 "$out"; fail=1; return; fi
    local pat
    for pat in "$@"; do
        grep -q -- "$pat" "$out" || { echo "FAIL $name: the report does not say '$pat':"; head -20 "$out"; fail=1; return; }
    done
    "$MPILENS" report --json "$dir" >"$tmp/$name.json" 2>/dev/null; st=$?
    [ $st -le 1 ] || { echo "FAIL $name: report --json crashed ($st)"; fail=1; return; }
    if [ $st -eq 0 ] && ! python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/$name.json"; then
        echo "FAIL $name: report --json is not valid JSON"; fail=1; return
    fi
    "$MPILENS" export -q --format=perfetto "$dir" -o "$tmp/$name.trace.json" >/dev/null 2>&1; st=$?
    [ $st -le 1 ] || { echo "FAIL $name: export crashed ($st)"; fail=1; return; }
    echo "ok $name"
}
copy() { rm -rf "$tmp/$1"; cp -r "$tmp/good" "$tmp/$1"; }

check good "$tmp/good" 0 "unmatched: 0 sends"
mkdir "$tmp/empty"
check empty "$tmp/empty" 1 "$tmp/empty" "no rank files"
check missing-dir "$tmp/nonexistent" 1 "$tmp/nonexistent" "does not exist"
copy cut-header; truncate -s 1000 "$tmp/cut-header/rank-00002.mlt"
check cut-header "$tmp/cut-header" 0 "rank-00002.mlt: is cut before the end of its header" "rank 2)"
copy cut-tables; truncate -s 9000 "$tmp/cut-tables/rank-00002.mlt"
check cut-tables "$tmp/cut-tables" 0 "rank-00002.mlt: file is cut before its events" "never received"
# where a file's last chunk begins: its chunk magic at a page boundary (the
# spare chunks the runtime leaves after it are punched out: zeros)
last_chunk() { grep -obUaP 'CHNK' "$1" | cut -d: -f1 | awk '$1 % 4096 == 0' | tail -1; }
# cut 1000 bytes into the records of its (only) chunk
copy cut-events; f=$tmp/cut-events/rank-00003.mlt; truncate -s $(( $(last_chunk "$f") + 64 + 1000 )) "$f"
check cut-events "$tmp/cut-events" 0 "rank-00003.mlt: file is cut in chunk 0" "never received"
# records overwritten inside the committed part of the last chunk with bytes
# 0x01: the first record header there says 1 word, which no record has, so
# the reader must find it (random bytes may form records that look valid)
copy corrupt; f=$tmp/corrupt/rank-00001.mlt
chunk=$(last_chunk "$f")
committed=$(od -An -tu4 -j $((chunk + 20)) -N4 "$f" | tr -d ' ')
at=512; [ "$committed" -gt 4608 ] || at=$((committed / 4))
len=$((committed - at)); [ $len -le 4096 ] || len=4096
head -c $len /dev/zero | tr '\0' '\001' | dd of="$f" bs=1 seek=$((chunk + 64 + at)) conv=notrunc status=none
check corrupt "$tmp/corrupt" 0 "rank-00001.mlt: corrupt record in chunk of thread 0 at byte" "Findings"
copy version; "$tmp/patch" "$tmp/version/rank-00000.mlt" version=7
check version "$tmp/version" 0 "rank-00000.mlt: format version 7" "rank 0)"
copy job; "$tmp/patch" "$tmp/job/rank-00003.mlt" job_id=99
check job "$tmp/job" 0 "rank-00003.mlt: belongs to another job" "rank 3)"
copy missing; rm "$tmp/missing/rank-00002.mlt" "$tmp/missing/rank-00001.mlt"
check missing "$tmp/missing" 0 "2 of 4 ranks have no readable rank file (rank 1-2)" "never received"
copy dup; cp "$tmp/dup/rank-00001.mlt" "$tmp/dup/rank-00005.mlt"
check dup "$tmp/dup" 0 "rank-00005.mlt: a second file for rank 1"
copy magic; "$tmp/patch" "$tmp/magic/rank-00001.mlt" magic=0
check magic "$tmp/magic" 0 "rank-00001.mlt: is not an mpilens rank file"
copy allbad; for f in "$tmp"/allbad/*.mlt; do "$tmp/patch" "$f" version=9; done
check allbad "$tmp/allbad" 1 "format version 9" "no rank file could be read"
copy header-fields; "$tmp/patch" "$tmp/header-fields/rank-00001.mlt" nchunks=4000000000 ncomms=70000 chunk_size=12345
check header-fields "$tmp/header-fields" 0 "invalid chunk size"
# random damage: many copies, each with a few random byte ranges overwritten
crashes=0
for i in $(seq 1 30); do
    copy rnd
    for f in "$tmp"/rnd/*.mlt; do
        sz=$(stat -c %s "$f")
        for k in 1 2 3; do
            off=$(( (RANDOM * 32768 + RANDOM) % sz ))
            head -c $(( RANDOM % 64 + 1 )) /dev/urandom | dd of="$f" bs=1 seek=$off conv=notrunc status=none
        done
    done
    "$MPILENS" report "$tmp/rnd" >/dev/null 2>&1; st=$?
    [ $st -le 1 ] || { crashes=$((crashes + 1)); cp -r "$tmp/rnd" "$tmp/crash-$i"; echo "FAIL random damage #$i: report exit $st"; }
    "$MPILENS" export -q --format=perfetto "$tmp/rnd" -o "$tmp/rnd.json" >/dev/null 2>&1; st=$?
    rm -f "$tmp/rnd.json"
    [ $st -le 1 ] || { crashes=$((crashes + 1)); echo "FAIL random damage #$i: export exit $st"; }
done
[ $crashes -eq 0 ] && echo "ok random damage: 30 runs, no crash" || fail=1
exit $fail
