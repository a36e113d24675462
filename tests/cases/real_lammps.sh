# LAMMPS (Debian's lmp) on the bundled 3d Lennard-Jones melt example, 4 ranks,
# once with a plain mpirun of the MPI lmp links and once through
# `mpilens run -q -n 4 -o DIR lmp -in in.melt` (mpilens picks the MPI and the
# launcher itself): the thermodynamic output (everything but timings) is
# identical; 4 rank files with a plausible number of events (mpilens dump).
# timeout: 300
lmp=$(command -v lmp) || fail "lmp not installed (Debian package lammps)"
ex=
for f in /usr/share/lammps/examples/melt/in.melt /usr/share/doc/lammps/examples/melt/in.melt; do
    [ -f "$f" ] && { ex=$f; break; }
done
[ -n "$ex" ] || fail "in.melt not found (Debian package lammps-examples)"
impl=$(mpi_of "$lmp")
[ "$impl" != unknown ] || fail "cannot tell which MPI $lmp links"
need_runtime "$impl"
note "lmp links $impl"
for mode in plain rt; do
    mkdir -p "$TEST_TMP/$mode"
    cp "$ex" "$TEST_TMP/$mode/in.melt"
done
(cd "$TEST_TMP/plain" && run_mpi "$impl" 4 "$lmp" -in in.melt) >"$TEST_TMP/plain.out" 2>"$TEST_TMP/plain.err"
rc0=$?
need_mpilens
(cd "$TEST_TMP/rt" && "$MPILENS" run -q -n 4 -o "$TEST_TMP/run" "$lmp" -in in.melt) >"$TEST_TMP/rt.out" 2>"$TEST_TMP/rt.err"
rc1=$?
assert_eq 0 "$rc0" "exit status of lmp without the runtime"
assert_eq 0 "$rc1" "exit status of mpilens run lmp ($(head -c 300 "$TEST_TMP/rt.err"))"
# drop timings: the breakdown table, and lines with times, rates or CPU use
strip() {
    awk '/MPI task timing breakdown/ { skip = 1 } skip && /^$/ { skip = 0; next } skip { next }
         /Loop time|Performance:|CPU use|Total wall time|CPU = |%/ { next } { print }' "$1"
}
strip "$TEST_TMP/plain.out" >"$TEST_TMP/plain.thermo"
strip "$TEST_TMP/rt.out" >"$TEST_TMP/rt.thermo"
grep -q '^ *250 ' "$TEST_TMP/plain.thermo" || soft_fail "no thermo line for step 250 in the plain run"
if ! cmp -s "$TEST_TMP/plain.thermo" "$TEST_TMP/rt.thermo"; then
    soft_fail "LAMMPS output differs under the runtime: $(diff "$TEST_TMP/plain.thermo" "$TEST_TMP/rt.thermo" | grep -m4 '^[<>]' | tr '\n' ' ' | head -c 400)"
fi
check_rank_files "$TEST_TMP/run" 4 "lmp under the runtime"
run_events "$TEST_TMP/run"
# plausible: every rank initialises and finalises once, and communicates with
# its neighbours at least once per step of the 250-step run (forward
# communication of ghost atoms: MPI_Irecv, MPI_Send, MPI_Wait), every
# receive waited for, but not without bound
once_per_rank "$TEST_TMP/events.txt" 4 MPI_Init MPI_Finalize
for ((r = 0; r < 4; r++)); do
    k=$(awk -v r=$r '$1 == r' "$TEST_TMP/events.txt" | wc -l)
    [ "$k" -ge 250 ] && [ "$k" -le 200000 ] || soft_fail "rank $r: $k events (expected 250 to 200000 for 250 steps)"
    ir=$(count_calls "$TEST_TMP/events.txt" $r MPI_Irecv)
    [ "$ir" -ge 250 ] || soft_fail "rank $r: $ir MPI_Irecv (expected one per step at least)"
    assert_eq "$ir" "$(count_calls "$TEST_TMP/events.txt" $r MPI_Wait)" "rank $r: MPI_Wait events (one per MPI_Irecv)"
done
# C++ names: LAMMPS (no debug information in Debian's package) calls MPI
# from LAMMPS_NS:: methods; dump shows them demangled, never "_Z...".
grep -q ' LAMMPS_NS::[A-Za-z_]*::[A-Za-z_~]*(' "$TEST_TMP/events.txt" ||
    soft_fail "no demangled LAMMPS_NS::Class::method( call site in dump: $(awk '{ print $6 }' "$TEST_TMP/events.txt" | sort -u | head -3 | tr '\n' ' ')"
! grep -q ' _Z[A-Z0-9]' "$TEST_TMP/events.txt" ||
    soft_fail "mangled call sites in dump: $(grep -o ' _Z[A-Za-z0-9_]*' "$TEST_TMP/events.txt" | head -1)"
# Perfetto: every arrow from the send's start to the receive's end, none
# pointing back in time (joining the middles of the calls drew about a
# quarter of LAMMPS's arrows backwards)
"$MPILENS" export -q --format=perfetto "$TEST_TMP/run" -o "$TEST_TMP/trace.json" 2>"$TEST_TMP/export.err" ||
    soft_fail "export failed: $(head -c 300 "$TEST_TMP/export.err")"
r=$(python3 - "$TEST_TMP/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
s = {e['id']: float(e['ts']) for e in ev if e['ph'] == 's'}
f = {e['id']: float(e['ts']) for e in ev if e['ph'] == 'f'}
back = [i for i in s if i in f and f[i] < s[i] - 1e-6]
print(f'{len(back)} of {len(s)} arrows point back in time' if back or len(s) < 1000 else '')
PY
)
[ -z "$r" ] || soft_fail "perfetto: $r"
