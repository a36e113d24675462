#!/usr/bin/env bash
# make install PREFIX=DIR gives DIR/bin/mpilens, which finds its runtimes
# (each a shared library and an archive) without environment variables and
# records a run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
make -s -C "$root" install PREFIX="$t/prefix" >/dev/null || { echo "FAIL make install"; exit 1; }
[ -x "$t/prefix/bin/mpilens" ] || { echo "FAIL no bin/mpilens"; exit 1; }
ls "$t"/prefix/lib/mpilens/libmpilens-*.so >/dev/null || { echo "FAIL no runtimes"; exit 1; }
for so in "$t"/prefix/lib/mpilens/libmpilens-*.so; do
    [ -f "${so%.so}.a" ] || { echo "FAIL no archive beside $so"; exit 1; }
done
cd "$t"
cc_=$(command -v mpicc.openmpi || command -v mpicc.mpich)
$cc_ -g -o ring "$root/examples/ring.c"
env -u MPILENS_DIR -u LD_PRELOAD "$t/prefix/bin/mpilens" run -q -n 2 -o out ./ring 2 >/dev/null || { echo "FAIL installed run"; exit 1; }
n=$("$t/prefix/bin/mpilens" dump out --no-header | grep -c MPI_Send)
[ "$n" = 4 ] || { echo "FAIL want 4 MPI_Send events, got $n"; exit 1; }
echo "ok installed tool ran ring on 2 ranks: $n MPI_Send events"
