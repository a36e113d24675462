# report_collfirst: who a collective instance is named after and who its
# mismatch finding names (analysis/match.c an_coll_arrive) do not depend on
# the order the arrivals are read in, nor on how they are split over the
# slices of a parallel analysis (tests/unit/test_collfirst.c: 20,000
# random instances against a brute-force search).  The same on recorded
# runs, serial against sliced: report_parallel (deadlock_coll_mismatch).
# timeout: 60
CC=${CC:-cc}
"$CC" -std=gnu11 -D_GNU_SOURCE -O1 -Wall -I"$ROOT/format" -I"$ROOT/analysis" -o "$TEST_TMP/test_collfirst" \
    "$ROOT/tests/unit/test_collfirst.c" "$ROOT"/analysis/*.c "$ROOT/format/reader.c" -lz -lm 2>"$TEST_TMP/build.err" ||
    fail "build test_collfirst: $(grep -m3 error "$TEST_TMP/build.err")"
"$TEST_TMP/test_collfirst" >"$TEST_TMP/out" 2>&1 || fail "test_collfirst: $(tail -3 "$TEST_TMP/out")"
grep -q "20000 instances" "$TEST_TMP/out" || fail "test_collfirst said nothing: $(cat "$TEST_TMP/out")"
