#!/usr/bin/env bash
# mpilens dump on bad input: one clear line, non-zero exit, never a crash
# (--rank: not a number, empty, too big, another rank than the one file's).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
M=${MPILENS:-$root/build/bin/mpilens}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
expect() {  # name, wanted-substring, command...
    local name=$1 want=$2; shift 2
    "$@" >"$t/out" 2>"$t/err"; local rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then echo "FAIL $name: exit $rc"; fail=1; return; fi
    if [ "$(wc -l <"$t/err")" -ne 1 ]; then echo "FAIL $name: want one line, got: $(cat "$t/err")"; fail=1; return; fi
    grep -q -- "$want" "$t/err" || { echo "FAIL $name: '$want' not in: $(cat "$t/err")"; fail=1; return; }
    echo "ok $name: $(cat "$t/err")"
}
expect missing-dir "does not exist" "$M" dump "$t/nope"
mkdir "$t/empty"
expect empty-dir "holds no rank files" "$M" dump "$t/empty"
mkdir "$t/magic"; head -c 20000 /dev/urandom > "$t/magic/rank-00000.mlt"
expect wrong-magic "wrong magic" "$M" dump "$t/magic/rank-00000.mlt"
# 1-7 bytes: no rank file unless they begin the magic (then a cut one)
printf 'hello' > "$t/short5.mlt"
expect short-not-rank "is not an mpilens rank file" "$M" dump "$t/short5.mlt"
printf 'MPIL' > "$t/short4.mlt"
expect short-cut "cut before the end of its header" "$M" dump "$t/short4.mlt"
mkdir "$t/short"; printf 'abc' > "$t/short/rank-00000.mlt"
"$M" report "$t/short" >/dev/null 2>"$t/err"
grep -q "rank-00000.mlt: is not an mpilens rank file" "$t/err" || { echo "FAIL short-report: $(cat "$t/err")"; fail=1; }
expect no-args "give one run directory" "$M" dump
expect bad-rank "rank number" "$M" dump "$t/empty" --rank x
expect bad-rank-empty "rank number" "$M" dump "$t/empty" --rank ''
expect bad-rank-huge "rank number.*99999999999999999999" "$M" dump "$t/empty" --rank 99999999999999999999
# a real file with its version field changed
mkdir "$t/real"
cc_=$(command -v mpicc.openmpi || command -v mpicc.mpich)
if [ -n "$cc_" ]; then
    rt=$root/build/lib/mpilens/libmpilens-$([ "$cc_" = "$(command -v mpicc.openmpi)" ] && echo openmpi || echo mpich).so
    printf '#include <mpi.h>\nint main(int c,char**v){int r;MPI_Init(&c,&v);MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Finalize();return 0;}\n' > "$t/p.c"
    $cc_ -o "$t/p" "$t/p.c"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPILENS_DIR="$t/real" LD_PRELOAD="$rt" "$t/p"
    f=$t/real/rank-00000.mlt
    [ -f "$f" ] || f=$(ls "$t"/real/*.mlt | head -1)
    cp "$f" "$t/v.mlt"
    printf '\x63\x00\x00\x00' | dd of="$t/v.mlt" bs=1 seek=8 conv=notrunc 2>/dev/null
    expect bad-version "format version" "$M" dump "$t/v.mlt"
    head -c 100 "$f" > "$t/short.mlt"
    expect cut-header "cut before the end of its header" "$M" dump "$t/short.mlt"
    # --rank on one rank file: that file's rank, or an error (not another rank's events)
    expect other-rank "is rank 0's file, not rank 3's" "$M" dump "$f" --rank 3
    "$M" dump "$f" --rank 0 >/dev/null 2>"$t/err" || { echo "FAIL one file --rank 0: $(cat "$t/err")"; fail=1; }
    "$M" dump "$t/real" >/dev/null 2>"$t/err" || { echo "FAIL real: $(cat "$t/err")"; fail=1; }
    [ -s "$t/err" ] && { echo "FAIL real: unexpected warnings: $(cat "$t/err")"; fail=1; }
fi
exit $fail
