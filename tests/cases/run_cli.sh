#!/usr/bin/env bash
# mpilens run: normal runs on both MPIs, -- mode, exit status, and every bad
# input gets one line, a non-zero exit and no directory left behind.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
M=${MPILENS:-$root/build/bin/mpilens}
t=$(mktemp -d); trap 'chmod -R u+w "$t"; rm -rf "$t"' EXIT
cd "$t"
fail=0
bad() { echo "FAIL $*"; fail=1; }
printf '#include <mpi.h>\n#include <stdlib.h>\nint main(int c,char**v){MPI_Init(&c,&v);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Barrier(MPI_COMM_WORLD);MPI_Finalize();return c>1?atoi(v[1]):0;}\n' > p.c
for impl in openmpi mpich; do
    command -v mpicc.$impl >/dev/null || continue
    mpicc.$impl -g -o p-$impl p.c
    "$M" run -q -n 3 -o out-$impl ./p-$impl >/dev/null 2>err; rc=$?
    [ $rc -eq 0 ] || bad "$impl run: exit $rc: $(cat err)"
    n=$(ls out-$impl | grep -c '^rank-0000[0-2].mlt$')
    [ "$n" = 3 ] || bad "$impl run: want 3 rank files, got $(ls out-$impl)"
    [ "$(stat -c %a out-$impl)" = 700 ] || bad "$impl run: directory mode $(stat -c %a out-$impl)"
    [ "$("$M" dump out-$impl --no-header | grep -c ' MPI_Barrier p.c:3')" = 3 ] || bad "$impl: 3 MPI_Barrier at p.c:3 expected"
    "$M" run -q -n 2 -o st-$impl ./p-$impl 3 >/dev/null 2>&1; rc=$?
    [ $rc -eq 3 ] || bad "$impl exit status: want 3, got $rc"
    echo "ok $impl run"
done
launch_o=(mpirun.openmpi --allow-run-as-root -n 2 ./p-openmpi)
"$M" run -q -o dd1 -- "${launch_o[@]}" >/dev/null 2>err && [ "$(ls dd1 | wc -l)" = 2 ] || bad "-- mpirun.openmpi: $(cat err)"
"$M" run -q -o dd2 -- mpiexec.mpich -n 2 ./p-mpich >/dev/null 2>err && [ "$(ls dd2 | wc -l)" = 2 ] || bad "-- mpiexec.mpich: $(cat err)"
echo "ok -- mode"
# bad input
printf 'int main(void){return 0;}\n' > nompi.c; gcc -o nompi nompi.c
gcc -static -o static nompi.c 2>/dev/null || cp nompi static
cp p.c notexec
mkdir exists ro; chmod 555 ro; : > out; : > err
expect() {  # name, want, args...
    local name=$1 want=$2; shift 2
    before=$(ls | sort)
    "$M" run "$@" >out 2>err; local rc=$?
    [ $rc -ne 0 ] && [ $rc -lt 128 ] || { bad "$name: exit $rc"; return; }
    [ "$(wc -l <err)" = 1 ] || { bad "$name: want one line: $(cat err)"; return; }
    grep -q -- "$want" err || { bad "$name: '$want' not in: $(cat err)"; return; }
    [ "$(ls | sort)" = "$before" ] || { bad "$name: left $(comm -13 <(echo "$before") <(ls | sort))"; return; }
    echo "ok $name: $(cat err)"
}
expect missing "no such program" -n 2 ./nothere
expect notexec "not an executable" -n 2 ./notexec
expect nompi "not linked against MPI" -n 2 ./nompi
expect static "statically linked" -n 2 ./static
expect unknown-mpi "unknown MPI" --mpi=lam -n 2 ./p-openmpi
expect exists "already exists" -o exists -n 2 ./p-openmpi
expect no-parent "not writable" -o nodir/x -n 2 ./p-openmpi
[ "$(id -u)" = 0 ] || expect unwritable "not writable" -o ro/x -n 2 ./p-openmpi
expect bad-n "wants a number" -n zero ./p-openmpi
expect nothing "nothing after" --
expect noprog "which program" -n 2
"$M" run --help | grep -q 'usage: mpilens run' || bad "--help"
exit $fail
