# LAMMPS (Debian's lmp) on the bundled 3d Lennard-Jones melt example, 4 ranks
# with the MPI lmp links: the thermodynamic output (everything but timings) is
# identical with and without the runtime; 4 rank files with a plausible number
# of events (> 1000) in all.
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
(cd "$TEST_TMP/rt" && rt_mpi "$impl" "$TEST_TMP/run" 4 "$lmp" -in in.melt) >"$TEST_TMP/rt.out" 2>"$TEST_TMP/rt.err"
rc1=$?
assert_eq 0 "$rc0" "exit status of lmp without the runtime"
assert_eq 0 "$rc1" "exit status of lmp under the runtime"
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
need_mpilens
n=$(count_events "$TEST_TMP/run")
note "$n events"
[ "$n" -gt 1000 ] || soft_fail "only $n events recorded for 4 ranks of LAMMPS (expected > 1000)"
