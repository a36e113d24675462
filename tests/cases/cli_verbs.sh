# cli_verbs: the analysis verbs on a real run (rep_types, 2 ranks, through
# `mpilens run`, both MPIs) when their output cannot be written, and report's
# options that contradict each other or that --failures would ignore.
#
# Output that cannot be written is an error, and no cut output is kept:
# - standard output on /dev/full (every write fails with ENOSPC): report
#   (text, --json, --failures, --critical-path), dump and export -o - exit 1
#   with one line "cannot write to standard output" (before: exit 0, nothing
#   said: 'mpilens report DIR >file' on a full disk looked like success);
# - a file past the file-size limit (ulimit -f 4: writes past 4 KiB fail with
#   EFBIG; SIGXFSZ ignored): the page of view (~100 KB), export's Perfetto
#   JSON (~15 KB) and OTF2 archive (its .def ~29 KB), report -o (~8 KB) exit
#   1 with one line, and nothing is left under the name asked for (before:
#   view said "wrote", exit 0, and left an empty page; export left a cut JSON
#   or a half archive: OTF2's errors on stderr, exit 0).
# Options: --critical-path with --no-critical-path, and --failures with
# --all, --from, --to, --alpha, --beta, --cost-model, --eager, --calibration
# or --no-critical-path (the diagnosis alone reads no events) exit 2 with one
# line naming the option (before: exit 0, the option ignored).
# export --from 100 on rep_types (its calls span well under a second):
# past the run's end, exit 2 in one line as report says it, no file (before:
# an empty trace written, exit 0).
# A FIFO under rank 1's file name: report, dump, view and export end (within
# 20 s; before: blocked forever in open()), name the file and go on with rank 0.
# A rank file its reader may not open (mode 000, read as user nobody; root
# reads anything): top --once names it in one line "cannot be opened
# (permission denied)" and counts it unreadable in its title (before: rank 1
# "not started (no rank file yet)", nothing said); report and dump name it,
# say why ("cannot be opened: permission denied"; before: "cannot be opened
# or mapped") and go on with rank 0.
# --help of mpilens and of every command fits 80 columns, and the command
# list's descriptions start in one column (before: 'calibrate' pushed its
# description 1 right, and 17 help lines were 81-89 columns wide).
need_mpilens
for c in "" run report export view calibrate top dump agent; do
    # shellcheck disable=SC2086
    wide=$("$MPILENS" $c --help | awk 'length($0) > 80 { print length($0) ": " $0 }' | head -2)
    [ -z "$wide" ] || soft_fail "mpilens $c --help: lines over 80 columns: $wide"
done
cols=$("$MPILENS" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { on = 0 }
    on { match($0, /^  [a-z]+ +/); print RLENGTH }' | sort -u | tr '\n' ' ')
[[ $cols =~ ^[0-9]+\ $ ]] || soft_fail "mpilens --help: the command descriptions start at columns $cols (one expected)"
# one stderr line containing $3, exit status $2, for the command after
one_line() {  # what status pattern cmd...
    local what=$1 want=$2 pat=$3; shift 3
    "$@" 2>"$TEST_TMP/err"
    local st=$?
    local n; n=$(wc -l <"$TEST_TMP/err")
    [ "$st" -eq "$want" ] || { soft_fail "$what: exit status $st, want $want ($(head -c 200 "$TEST_TMP/err"))"; return; }
    [ "$n" -eq 1 ] || { soft_fail "$what: $n lines on stderr, want 1: $(head -c 300 "$TEST_TMP/err" | tr '\n' '|')"; return; }
    grep -q -- "$pat" "$TEST_TMP/err" || soft_fail "$what: '$pat' not in: $(cat "$TEST_TMP/err")"
}
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_types) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: run failed: $(head -c 300 "$d/err")"; continue; }
    # the same commands succeed where their output can be written
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>"$d/rep.err" || soft_fail "$impl: report failed: $(head -c 200 "$d/rep.err")"
    assert_contains "$(cat "$d/rep.txt")" "11 matched" "$impl: report"
    # standard output that cannot be written
    for v in "report -q" "report -q --json" "report --failures" "report -q --critical-path" "dump" "export -q -o -"; do
        # shellcheck disable=SC2086
        one_line "$impl: $v >/dev/full" 1 "cannot write to standard output" "$MPILENS" $v "$d/run" >/dev/full
    done
    # files past the size limit: nothing kept under the name
    lim() { (ulimit -f 4; trap '' XFSZ; "$@"); }
    one_line "$impl: view past the file-size limit" 1 "cannot write the page" lim "$MPILENS" view -q "$d/run" -o "$d/p.html"
    [ -e "$d/p.html" ] && soft_fail "$impl: view left $(stat -c %s "$d/p.html") bytes in p.html"
    one_line "$impl: export past the file-size limit" 1 "cannot write $d/t.json" lim "$MPILENS" export -q "$d/run" -o "$d/t.json"
    [ -e "$d/t.json" ] && soft_fail "$impl: export left $(stat -c %s "$d/t.json") bytes in t.json"
    if "$MPILENS" export --help | grep -q otf2 && command -v otf2-print >/dev/null; then
        mkdir -p "$d/o"
        one_line "$impl: export --format=otf2 past the file-size limit" 1 "writing the OTF2 archive $d/o/a failed" \
            lim "$MPILENS" export -q --format=otf2 "$d/run" -o "$d/o/a"
        left=$(ls -A "$d/o")
        [ -z "$left" ] && rmdir "$d/o" || soft_fail "$impl: export --format=otf2 left: $left"
        # where it can be written, the archive is whole
        "$MPILENS" export -q --format=otf2 "$d/run" -o "$d/o2/a" || soft_fail "$impl: export --format=otf2 failed"
        otf2-print "$d/o2/a.otf2" >/dev/null 2>"$d/o2.err" || soft_fail "$impl: otf2-print: $(head -c 200 "$d/o2.err")"
    else
        note "$impl: no OTF2 export here: its file-size check skipped"
    fi
    one_line "$impl: report -o past the file-size limit" 1 "r.txt: File too large" lim "$MPILENS" report -q "$d/run" -o "$d/r.txt"
    [ -e "$d/r.txt" ] && soft_fail "$impl: report -o left $(stat -c %s "$d/r.txt") bytes in r.txt"
done
# report's options (the run of the last MPI; they are refused before any reading)
r=$(ls -d "$TEST_TMP"/*/run 2>/dev/null | tail -1)
if [ -n "$r" ]; then
    one_line "export --from 100" 2 "--from 100 s is past the run's end" "$MPILENS" export -q --from 100 "$r" -o "$TEST_TMP/late.json"
    [ -e "$TEST_TMP/late.json" ] && soft_fail "export --from 100 wrote late.json"
    one_line "report --critical-path --no-critical-path" 2 "give one" "$MPILENS" report --critical-path --no-critical-path "$r" >/dev/null
    for o in --all "--from 0.1" "--to 1" "--alpha 5" "--beta 1" "--cost-model simple" "--eager 100" \
        "--calibration $TEST_TMP/none" --no-critical-path; do
        # shellcheck disable=SC2086
        one_line "report --failures $o" 2 "${o%% *} has no effect on --failures" "$MPILENS" report --failures $o "$r" >/dev/null
    done
    "$MPILENS" report --failures --json "$r" >"$TEST_TMP/f.json" || soft_fail "report --failures --json failed"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TEST_TMP/f.json" || soft_fail "report --failures --json: not JSON"
fi
# a rank file that may not be read (the last MPI's run, copied where nobody
# can reach it, its rank 1 file mode 000)
if [ -n "$r" ] && [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then
    u=$(mktemp -d /tmp/mpilens-cli-verbs.XXXXXX)
    chmod 755 "$u"
    cp -r "$r" "$u/run"
    chmod 755 "$u/run"
    chmod 644 "$u/run"/*.mlt
    chmod 000 "$u/run/rank-00001.mlt"
    # the binary too: the checkout it was built in may be closed to others (a
    # clone in a 0700 directory: nobody could not run it at all)
    cp "$MPILENS" "$u/mpilens"
    chmod 755 "$u/mpilens"
    runuser -u nobody -- "$u/mpilens" --help >/dev/null 2>&1 || soft_fail "user nobody cannot run $u/mpilens"
    out=$(cd /tmp && runuser -u nobody -- "$u/mpilens" top --once "$u/run" 2>"$u/top.err")
    assert_eq 1 "$(wc -l <"$u/top.err")" "top --once, rank 1 unreadable: lines on stderr"
    assert_contains "$(cat "$u/top.err")" "rank-00001.mlt cannot be opened (permission denied)" "top --once's stderr"
    assert_contains "$out" "1 unreadable" "top --once's title"
    assert_not_contains "$out" "not started" "top --once"
    out=$(cd /tmp && runuser -u nobody -- "$u/mpilens" report -q "$u/run" 2>&1)
    assert_contains "$out" "rank-00001.mlt: cannot be opened: permission denied" "report, rank 1 unreadable"
    assert_contains "$out" "unmatched: 11 sends" "report, rank 1 unreadable (rank 0 sends rank 1 its 11 messages)"
    out=$(cd /tmp && runuser -u nobody -- "$u/mpilens" dump "$u/run" 2>&1)
    assert_contains "$out" "rank-00001.mlt cannot be opened: permission denied" "dump, rank 1 unreadable"
    rm -rf "$u"
else
    note "not root, or no runuser or user nobody: the unreadable rank file is not checked"
fi
# a FIFO under a rank file's name (the last MPI's run, rank 1's file replaced)
if [ -n "$r" ]; then
    ff=$TEST_TMP/fifo
    mkdir -p "$ff"
    cp "$r/rank-00000.mlt" "$ff/"
    mkfifo "$ff/rank-00001.mlt"
    for v in "report -q" "report --failures" "dump" "view -q -o -" "export -q -o -"; do
        # shellcheck disable=SC2086
        out=$(timeout 20 "$MPILENS" $v "$ff" 2>&1 >"$TEST_TMP/fifo.out")
        st=$?
        [ $st -eq 124 ] && { soft_fail "$v with a FIFO for rank 1's file: still running after 20 s"; continue; }
        [ $st -le 1 ] || soft_fail "$v with a FIFO for rank 1's file: exit status $st"
        case $v in
        report* | view*) out=$(cat "$TEST_TMP/fifo.out") ;;   # named in the report, in the page
        esac
        assert_contains "$out" "rank-00001.mlt" "$v with a FIFO for rank 1's file"
    done
fi
