#!/usr/bin/env bash
# Every MPI_* routine the MPI library exports is wrapped by the runtime, and
# every Fortran entry point (all manglings, mpi_f08) of its Fortran libraries:
# compares the runtime's exported symbols with the libraries', both MPIs.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
rtdir=$root/build/lib/mpilens
fail=0
syms() { nm -D --defined-only "$1" | awk '$2=="T"||$2=="W"||$2=="i"{print $3}' | sort -u; }
is_c() { grep -E '^MPI_' | grep -Ev '^MPI_[A-Z0-9_]+$' | grep -Ev '_(f|f08)$'; }
check() {  # impl clib flibs...
    local impl=$1 clib=$2; shift 2
    local rt=$rtdir/libmpilens-$impl.so
    [ -f "$rt" ] || { echo "FAIL: $rt not built"; fail=1; return; }
    local lib_c rt_c
    lib_c=$(syms "$clib" | is_c)
    rt_c=$(syms "$rt" | is_c)
    local missing extra
    missing=$(comm -23 <(echo "$lib_c") <(echo "$rt_c"))
    extra=$(comm -13 <(echo "$lib_c") <(echo "$rt_c"))
    if [ -n "$missing" ] || [ -n "$extra" ]; then
        echo "FAIL $impl: C routines not wrapped: $(echo $missing | head -c 600)"
        echo "FAIL $impl: wrapped but not exported: $(echo $extra | head -c 600)"
        fail=1
    else
        echo "ok $impl: $(echo "$lib_c" | wc -l) C routines exported, all wrapped"
    fi
    local f
    for f in "$clib" "$@"; do
        [ -f "$f" ] || continue
        local fsyms
        fsyms=$(syms "$f" | grep -E '^(mpi_|MPI_[A-Z0-9_]+$|MPI_.*_(f|f08)$)')
        [ -n "$fsyms" ] || continue
        missing=$(comm -23 <(echo "$fsyms") <(syms "$rt"))
        if [ -n "$missing" ]; then
            echo "FAIL $impl: Fortran entry points of $(basename "$f") not wrapped: $(echo $missing | head -c 600)"
            fail=1
        else
            echo "ok $impl: $(echo "$fsyms" | wc -l) Fortran entry points of $(basename "$f") all wrapped"
        fi
    done
}
if command -v mpicc.openmpi >/dev/null; then
    d=$(mpicc.openmpi --showme:libdirs | awk '{print $1}')
    check openmpi "$d/libmpi.so" "$d/libmpi_mpifh.so" "$d/libmpi_usempif08.so" "$d/libmpi_usempi_ignore_tkr.so"
fi
if command -v mpicc.mpich >/dev/null; then
    d=$(mpicc.mpich -show | tr ' ' '\n' | sed -n 's/^-L//p' | head -1)
    check mpich "$d/libmpich.so" "$d/libmpichfort.so"
fi
exit $fail
