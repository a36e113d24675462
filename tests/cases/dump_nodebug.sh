# Call sites of a program built without -g, both MPIs, 2 ranks through
# `mpilens run`: mpilens dump shows `function+0xOFF(module)` (small offset
# into the function); once the binary is gone (moved away: a trace read on
# another machine) it shows `module+0xOFF` with the offset into the module
# (function address + offset, the same place), never the process's absolute
# address.  A stripped copy shows `module+0xOFF` with the binary there and the
# same text without it.
need_mpilens
cat >"$TEST_TMP/nodebug.c" <<'EOF'
#include <mpi.h>
__attribute__((noinline)) void ml_step(void) { MPI_Barrier(MPI_COMM_WORLD); }
int main(int c, char **v) { MPI_Init(&c, &v); ml_step(); MPI_Finalize(); return 0; }
EOF
site_of() {  # run dir: the call sites of rank 0's MPI_Barrier events
    "$MPILENS" dump "$1" --rank 0 2>"$1.err" | awk '$5 == "MPI_Barrier" { print $6 }' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
for impl in openmpi mpich; do
    have_impl "$impl" || { soft_fail "$impl is not installed"; continue; }
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    # -O0: no tail call, so the return address is in ml_step
    "mpicc.$impl" -O0 -o "$d/nodebug" "$TEST_TMP/nodebug.c" || { soft_fail "$impl: cannot build"; continue; }
    strip -o "$d/stripped" "$d/nodebug"
    if readelf -S "$d/nodebug" | grep -q debug_line; then soft_fail "$impl: nodebug has line information"; fi
    for p in nodebug stripped; do
        (cd "$d" && "$MPILENS" run -q --mpi="$impl" -n 2 -o "$d/run-$p" "./$p") >"$d/$p.out" 2>&1 ||
            soft_fail "$impl: mpilens run $p failed: $(head -c 300 "$d/$p.out")"
    done
    # built without -g, the binary there: the function and a small offset in it
    s=$(site_of "$d/run-nodebug")
    note "$impl nodebug: $s"
    if [[ $s =~ ^ml_step\+0x([0-9a-f]+)\(nodebug\)$ ]]; then
        off=$((16#${BASH_REMATCH[1]}))
        assert_le "$off" 64 "$impl: offset into ml_step"
        fn=$(nm "$d/nodebug" | awk '$3 == "ml_step" { print $1 }')
        want=$(printf 'nodebug+0x%x' $((16#$fn + off)))
    else
        soft_fail "$impl: nodebug: MPI_Barrier site is '$s', expected ml_step+0x..(nodebug)"
        want=
    fi
    s2=$(site_of "$d/run-stripped")
    note "$impl stripped: $s2"
    [[ $s2 =~ ^stripped\+0x([0-9a-f]+)$ ]] || soft_fail "$impl: stripped: MPI_Barrier site is '$s2', expected stripped+0x.."
    # the binaries gone: offsets into the module, as before
    mv "$d/nodebug" "$d/nodebug.moved"
    rm "$d/stripped"
    s=$(site_of "$d/run-nodebug")
    note "$impl nodebug moved away: $s (expected $want)"
    [ -z "$want" ] || assert_eq "$want" "$s" "$impl: nodebug moved away: MPI_Barrier site"
    if [[ $s =~ \+0x([0-9a-f]+)$ ]]; then
        assert_le $((16#${BASH_REMATCH[1]})) $((16#100000)) "$impl: nodebug moved away: offset"
    fi
    s3=$(site_of "$d/run-stripped")
    note "$impl stripped deleted: $s3"
    assert_eq "$s2" "$s3" "$impl: stripped deleted: MPI_Barrier site"
done
