# report_sendrecv_unfinished: an MPI_Sendrecv whose rank was stopped in its
# receive half (tests/programs/dl_sendrecv_half.c, 2 ranks, a deadlock
# stopped by `mpilens run`, both MPIs): its send half is a message (the
# other rank's MPI_Recv took it: matched, 16 B, the size the receive got),
# so the report names only the two receives that wait for ever.  Before,
# the unfinished MPI_Sendrecv counted as a receive alone: rank 1's
# completed MPI_Recv was 'completed ..., but no recorded send fits'.  A send
# half nobody took is an unmatched send whose size the report says it does
# not know (it said 0 B; before, no such finding at all), in the finding
# and in the Messages summary ('2 sends (size unknown)', JSON
# unmatched_sends_unsized 2; it said '2 sends (0 B)').
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl dl_sendrecv_half) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && timeout -k 5 60 "$MPILENS" run -q --mpi=$impl -n 2 --deadlock-timeout 1 -o "$d/run" "$p") \
        >"$d/out" 2>"$d/err"
    rc=$?
    assert_eq 86 "$rc" "$impl: mpilens run exit status (deadlock stopped; stderr: $(tail -c 300 "$d/err"))"
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report failed: $(head -c 300 "$d/rep.err")"; continue; }
    r=$(python3 - "$d/rep.json" "$(line_of "$ROOT/tests/programs/dl_sendrecv_half.c" L_SENDRECV)" \
        "$(line_of "$ROOT/tests/programs/dl_sendrecv_half.c" L_RECV7)" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
sr, r7 = 'dl_sendrecv_half.c:' + sys.argv[2], 'dl_sendrecv_half.c:' + sys.argv[3]
m = rep['messages']
bad = ['%s: got %s, want %s' % c for c in [
    ('matched', m['matched'], 1), ('bytes', m['bytes'], 16), ('unmatched_receives', m['unmatched_receives'], 0),
    ('unmatched_sends', m['unmatched_sends'], 0), ('pending_receives', m['pending_receives'], 2)] if c[1] != c[2]]
got = sorted((f['kind'], f['rank'], f['site']) for f in rep['findings'])
want = sorted([('pending_receive', 0, sr), ('pending_receive', 1, r7)])
if got != want: bad.append('findings %s, want %s' % (got, want))
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    # the send half never received (dl_sendrecv_f.f90: two MPI_Sendrecv whose
    # receive tags no send has) is an unmatched send of unknown size
    p=$(prog $impl dl_sendrecv_f_f90) || continue
    (cd "$d" && timeout -k 5 60 "$MPILENS" run -q --mpi=$impl -n 3 --deadlock-timeout 1 -o "$d/run2" "$p") \
        >"$d/out2" 2>"$d/err2"
    assert_eq 86 "$?" "$impl dl_sendrecv_f: mpilens run exit status"
    "$MPILENS" report -q "$d/run2" >"$d/rep2.txt" 2>&1 || soft_fail "$impl dl_sendrecv_f: report failed"
    t=$(tr -s ' \n' '  ' <"$d/rep2.txt")
    for pair in "1 to rank 2" "2 to rank 1"; do
        assert_contains "$t" "1 message (size not recorded: the call was unfinished) from rank $pair, tag 4, MPI_COMM_WORLD: sent by MPI_Sendrecv" \
            "$impl dl_sendrecv_f: report"
    done
    # ... and the Messages summary says so too: 2 unmatched sends (ranks 1
    # and 2's send halves, tag 4), their size unknown; 4 receives never
    # completed (rank 0's two MPI_Irecv, the receive halves of ranks 1 and
    # 2, tags 5 and 6); it said '2 sends (0 B)'
    assert_contains "$t" "unmatched: 2 sends (size unknown), 4 receives" "$impl dl_sendrecv_f: report's Messages line"
    assert_contains "$t" "size unknown: 2 unmatched sends of unfinished calls, not in the bytes" \
        "$impl dl_sendrecv_f: report's Messages"
    "$MPILENS" report --json -q --no-critical-path "$d/run2" >"$d/rep2.json" 2>&1
    assert_eq "2 0 2" "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["messages"]
print(m["unmatched_sends"], m["unmatched_send_bytes"], m.get("unmatched_sends_unsized"))' "$d/rep2.json" 2>&1)" \
        "$impl dl_sendrecv_f: report --json unmatched_sends, _bytes, _unsized"
done
