# calibrate: `mpilens calibrate` measures a ping-pong on both MPIs and writes
# alpha and beta fitted to its own table (checked here by refitting the table
# independently); `report` takes alpha and beta from that file (by
# --calibration, by $MPILENS_CALIBRATION), flags win over it, and the
# critical path's modelled costs follow them exactly (the pipeline of
# cp_analytic: latency cost = alpha x messages on its path, bandwidth cost =
# beta x bytes on it); bad input: an existing file is kept, a bad file or
# option is one line and exit 2.
# timeout: 240
need_mpilens
refit() {  # FILE: "ok" when the file's alpha and beta are the weighted fit of its table
    python3 - "$1" <<'PY'
import sys
a = b = None; pts = []
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith('alpha_ns'): a = float(f[1])
    elif line.startswith('beta_ns_per_byte'): b = float(f[1])
    elif line.startswith('# ') and len(f) == 4 and f[1].isdigit(): pts.append((float(f[1]), float(f[2])))
if a is None or b is None or len(pts) < 5: print('no alpha/beta/table in the file'); sys.exit()
sw = sx = sy = sxx = sxy = 0.0
for n, t in pts:
    w = 1 / (t * t); sw += w; sx += w * n; sy += w * t; sxx += w * n * n; sxy += w * n * t
B = (sw * sxy - sx * sy) / (sw * sxx - sx * sx); A = (sy - B * sx) / sw
if A < 0: A, B = 0.0, sxy / sxx
if abs(A - a) > 0.01 * max(A, 1) + 0.01 or abs(B - b) > 0.01 * max(B, 1e-6) + 1e-6:
    print('file alpha %g beta %g, refit %g %g' % (a, b, A, B)); sys.exit()
if not (b > 0): print('beta %g not positive' % b); sys.exit()
print('ok')
PY
}
for impl in openmpi mpich; do
    have_impl $impl || continue
    f=$TEST_TMP/cal-$impl
    "$MPILENS" calibrate --mpi $impl -o "$f" >"$TEST_TMP/cal-$impl.out" 2>"$TEST_TMP/cal-$impl.err" ||
        { fail "$impl: calibrate failed: $(tail -3 "$TEST_TMP/cal-$impl.err")"; }
    grep -q "written to $f" "$TEST_TMP/cal-$impl.out" || fail "$impl: no 'written to' line: $(cat "$TEST_TMP/cal-$impl.out")"
    [ "$(grep -c '^# [0-9]' "$f")" -eq 9 ] || fail "$impl: not 9 sizes in the table: $(cat "$f")"
    r=$(refit "$f"); [ "$r" = ok ] || fail "$impl: $r"
    # an existing file is kept
    cp "$f" "$f.before"
    "$MPILENS" calibrate --mpi $impl -o "$f" 2>"$TEST_TMP/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'exists' "$TEST_TMP/err" && cmp -s "$f" "$f.before" ||
        fail "$impl: existing calibration file: rc=$rc $(cat "$TEST_TMP/err")"
done

# report reads alpha and beta: the pipeline's modelled costs follow them
impl=openmpi; have_impl $impl || impl=mpich
need_runtime $impl
p=$(prog $impl cp_analytic) || fail "no cp_analytic"
d=$TEST_TMP/pipe
mkdir -p "$d"
(cd "$d" && mpilens_run $impl "$d/run" 4 "$p" pipeline) >"$d/out" 2>"$d/err" || fail "pipeline run: $(head -c 300 "$d/err")"
printf '# test\nalpha_ns 1000\nbeta_ns_per_byte 1\n' >"$TEST_TMP/c1"
printf '# test\nalpha_ns 3000\nbeta_ns_per_byte 0.5\n' >"$TEST_TMP/c2"
"$MPILENS" report --json -q --calibration "$TEST_TMP/c1" "$d/run" >"$TEST_TMP/r1.json" || fail "report --calibration c1"
MPILENS_CALIBRATION=$TEST_TMP/c2 "$MPILENS" report --json -q "$d/run" >"$TEST_TMP/r2.json" || fail "report with MPILENS_CALIBRATION"
MPILENS_CALIBRATION=$TEST_TMP/c2 "$MPILENS" report --json -q --alpha 1000 --beta 1 "$d/run" >"$TEST_TMP/r3.json" ||
    fail "report with flags"
r=$(python3 - "$TEST_TMP" <<'PY'
import json, sys
t = sys.argv[1]
r = [json.load(open('%s/r%d.json' % (t, i)))['critical_path'] for i in (1, 2, 3)]
bad = []
def cm(x): return (x['cost_model']['alpha_ns'], x['cost_model']['beta_ns_per_byte'])
if cm(r[0]) != (1000, 1) or cm(r[1]) != (3000, 0.5) or cm(r[2]) != (1000, 1):
    bad.append('cost models %s' % [cm(x) for x in r])
if not r[0]['cost_model']['source'].endswith('/c1') or not r[1]['cost_model']['source'].endswith('/c2') \
   or r[2]['cost_model']['source'] != '--alpha, --beta':
    bad.append('sources %s' % [x['cost_model']['source'] for x in r])
L = [x['measures']['latency_cost']['path'] for x in r]
B = [x['measures']['bandwidth_cost']['path'] for x in r]
by = r[0]['measures']['bytes']['path']
if L[0] <= 0 or B[0] <= 0: bad.append('no modelled cost: %s %s' % (L, B))
if L[1] != 3 * L[0]: bad.append('latency cost %d with alpha 3000, %d with 1000' % (L[1], L[0]))
if B[0] != by: bad.append('bandwidth cost %d at 1 ns/B, bytes on path %d' % (B[0], by))
if abs(B[1] - B[0] / 2) > 1: bad.append('bandwidth cost %d at 0.5 ns/B, %d at 1' % (B[1], B[0]))
if L[2] != L[0] or B[2] != B[0]: bad.append('flags did not win over the file')
print('; '.join(bad) or 'ok')
PY
)
[ "$r" = ok ] || fail "report with calibrations: $r"
"$MPILENS" report --calibration "$TEST_TMP/nothere" "$d/run" >/dev/null 2>"$TEST_TMP/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] && grep -q '^mpilens report: cannot read' "$TEST_TMP/err" ||
    fail "missing calibration file: rc=$rc $(cat "$TEST_TMP/err")"
echo 'alpha 3' >"$TEST_TMP/bad"
# found by default (not asked for): a warning, and the report goes on with the defaults
MPILENS_CALIBRATION=$TEST_TMP/bad "$MPILENS" report --json -q "$d/run" >"$TEST_TMP/r4.json" 2>"$TEST_TMP/err" ||
    fail "a bad default calibration file stopped the report: $(cat "$TEST_TMP/err")"
grep -q 'warning: .*not a calibration file' "$TEST_TMP/err" || fail "no warning on a bad default calibration file"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['critical_path']['cost_model']; sys.exit(c['alpha_ns'] != 1000 or c['source'] != 'default')" "$TEST_TMP/r4.json" ||
    fail "bad default calibration file: not the default costs"
"$MPILENS" report --calibration "$TEST_TMP/bad" "$d/run" >/dev/null 2>"$TEST_TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'not a calibration file' "$TEST_TMP/err" || fail "bad calibration file: rc=$rc $(cat "$TEST_TMP/err")"
"$MPILENS" calibrate --mpi lam 2>"$TEST_TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q '^mpilens calibrate: --mpi' "$TEST_TMP/err" || fail "--mpi lam: rc=$rc"
"$MPILENS" calibrate --help | grep -q 'usage: mpilens calibrate' || fail "calibrate --help"
# a launcher that fails: one line, exit 1, no file
"$MPILENS" calibrate -q -o "$TEST_TMP/none" -- false 2>"$TEST_TMP/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$TEST_TMP/none" ] && grep -q 'ping-pong failed (exit status 1' "$TEST_TMP/err" ||
    fail "failing launcher: rc=$rc $(cat "$TEST_TMP/err")"
true
