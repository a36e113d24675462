# The node state stream without MPI:
#  - SHA-256 and HMAC-SHA-256 (tool/sha256.c) against the FIPS 180-2 and
#    RFC 4231 vectors (tests/unit/test_sha256.c);
#  - the stream itself (tests/unit/test_stream.c, with the address and
#    undefined-behaviour sanitizers when the compiler has them): encoding,
#    secrets and their files, addresses, a port in use, proofs and session
#    keys, tags against changed/replayed/reordered/foreign messages, the
#    front end applying messages to remote ranks, malformed messages
#    refused, 20000 mutated streams without a crash;
#  - the command line: one-line errors and exit status 2 (usage) or 1 for
#    bad HOST:PORT, a missing, open or malformed secret file, nothing
#    listening, a port in use; `mpilens agent --help`; and a front end and an
#    agent that do not share the secret: both say so, the agent exits 1.
# timeout: 240
need_mpilens
CC=${CC:-cc}
"$CC" -std=gnu11 -D_GNU_SOURCE -O1 -Wall -I"$ROOT/live" -o "$TEST_TMP/test_sha256" \
    "$ROOT/tests/unit/test_sha256.c" "$ROOT/live/sha256.c" || fail "build test_sha256"
"$TEST_TMP/test_sha256" >"$TEST_TMP/sha256.out" || fail "test_sha256: a vector does not match: $(tail -3 "$TEST_TMP/sha256.out")"

src=()
for f in "$ROOT"/tool/*.c "$ROOT"/live/*.c "$ROOT"/format/*.c "$ROOT"/analysis/*.c; do
    # mpilens.c: its own main; view.c: needs zlib and the page (build/gen/views.c)
    [ "$f" = "$ROOT/tool/mpilens.c" ] || [ "$f" = "$ROOT/tool/view.c" ] || [ "$f" = "$ROOT/tool/view_serve.c" ] || src+=("$f")
done
san=-fsanitize=address,undefined
echo 'int main(void){return 0;}' >"$TEST_TMP/san.c"
"$CC" $san -o "$TEST_TMP/san" "$TEST_TMP/san.c" 2>/dev/null && "$TEST_TMP/san" || san=
[ -n "$san" ] || note "no sanitizers with $CC: test_stream built without them"
# the tool's one C++ file (the demangler, format/demangle.cc)
"${CXX:-g++}" -O1 -g $san -c -o "$TEST_TMP/demangle.o" "$ROOT/format/demangle.cc" 2>"$TEST_TMP/build_stream.err" ||
    fail "build demangle.o: $(grep -m3 error "$TEST_TMP/build_stream.err")"
"$CC" -std=gnu11 -D_GNU_SOURCE -DML_NO_OTF2 -O1 -g -Wall -Wno-format-truncation $san -I"$ROOT/format" \
    -I"$ROOT/tool" -I"$ROOT/live" -I"$ROOT/analysis" -o "$TEST_TMP/test_stream" "$ROOT/tests/unit/test_stream.c" "${src[@]}" \
    "$TEST_TMP/demangle.o" -ldw -lelf -lz -lm -lstdc++ 2>"$TEST_TMP/build_stream.err" || fail "build test_stream: $(grep -m3 error "$TEST_TMP/build_stream.err")"
mkdir -p "$TEST_TMP/u"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$TEST_TMP/test_stream" "$TEST_TMP/u" >"$TEST_TMP/stream.out" 2>&1 ||
    fail "test_stream: $(grep -m5 -E 'FAIL|ERROR|runtime error' "$TEST_TMP/stream.out" | tr '\n' ' ')"
note "$(tail -1 "$TEST_TMP/stream.out")"

# ---- the command line ----------------------------------------------------------
d=$TEST_TMP/cli
mkdir -p "$d/run"
( umask 077; printf '%064x\n' 7 >"$d/secret"; printf '%064x\n' 8 >"$d/other"; echo nonsense >"$d/garbage" )
( umask 022; printf '%064x\n' 7 >"$d/open" )

# expect STATUS PATTERN WHAT -- command...: the exit status, one line on stderr matching PATTERN
expect() {
    local want=$1 pat=$2 what=$3; shift 4
    timeout 60 "$@" >"$d/out" 2>"$d/err"
    local rc=$?
    assert_eq "$want" "$rc" "$what: exit status"
    grep -Eq -- "$pat" "$d/err" || soft_fail "$what: stderr lacks /$pat/: $(head -c 300 "$d/err")"
    local n; n=$(grep -c . "$d/err")
    [ "$n" -le 1 ] || soft_fail "$what: $n lines on stderr, want one: $(head -c 300 "$d/err" | tr '\n' '|')"
}
A=("$MPILENS" agent)
expect 2 "^mpilens agent: --connect: 'nohost' is not HOST:PORT" "agent without a port" -- \
    "${A[@]}" --connect nohost --secret-file "$d/secret" "$d/run"
expect 2 "is not HOST:PORT" "agent port 70000" -- "${A[@]}" --connect 127.0.0.1:70000 --secret-file "$d/secret" "$d/run"
expect 2 "is not HOST:PORT" "agent port 0" -- "${A[@]}" --connect 127.0.0.1:0 --secret-file "$d/secret" "$d/run"
expect 2 "cannot read the secret file $d/missing: No such file" "agent missing secret file" -- \
    "${A[@]}" --connect 127.0.0.1:9 --secret-file "$d/missing" "$d/run"
expect 2 "can be read by others \(mode 644\)" "agent secret file readable by others" -- \
    "${A[@]}" --connect 127.0.0.1:9 --secret-file "$d/open" "$d/run"
expect 2 "does not hold 64 hex digits" "agent malformed secret file" -- \
    "${A[@]}" --connect 127.0.0.1:9 --secret-file "$d/garbage" "$d/run"
expect 2 "no secret: give --secret-file" "agent without a secret" -- \
    env -u MPILENS_SECRET "${A[@]}" --connect 127.0.0.1:9 "$d/run"
expect 2 "is not a run directory" "agent without a directory" -- \
    "${A[@]}" --connect 127.0.0.1:9 --secret-file "$d/secret" "$d/nodir"
expect 2 "--connect HOST:PORT is needed" "agent without --connect" -- "${A[@]}" --secret-file "$d/secret" "$d/run"
expect 2 "--ranks wants a list" "agent bad --ranks" -- \
    "${A[@]}" --connect 127.0.0.1:9 --secret-file "$d/secret" --ranks 3-1 "$d/run"
expect 2 "--interval wants" "agent bad --interval" -- \
    "${A[@]}" --connect 127.0.0.1:9 --secret-file "$d/secret" --interval x "$d/run"
expect 1 "cannot connect to 127.0.0.1:[0-9]+: Connection refused" "agent, nothing listening" -- \
    "${A[@]}" --connect 127.0.0.1:$((20000 + RANDOM % 20000)) --secret-file "$d/secret" "$d/run"
"$MPILENS" agent --help >"$d/help" 2>&1
assert_eq 0 "$?" "agent --help: exit status"
assert_contains "$(cat "$d/help")" "usage: mpilens agent --connect HOST:PORT" "agent --help"
assert_contains "$(cat "$d/help")" "--secret-file FILE" "agent --help"
assert_contains "$("$MPILENS" --help 2>&1)" "agent" "mpilens --help lists agent"

T=("$MPILENS" top)
expect 2 "^mpilens top: --listen: 'abc' is not \[ADDRESS:\]PORT" "top bad --listen" -- \
    "${T[@]}" --listen abc --secret-file "$d/secret"
expect 2 "can be read by others" "top secret readable by others" -- "${T[@]}" --listen 0 --secret-file "$d/open"
expect 2 "go with --listen" "top --secret-file without --listen" -- "${T[@]}" --secret-file "$d/secret" "$d/run"
expect 1 "cannot create the secret file $d/nodir/s" "top new secret in a missing directory" -- \
    "${T[@]}" --listen 0 --secret-file "$d/nodir/s"

# a port in use; an agent with another secret
timeout 60 "$MPILENS" top --listen 127.0.0.1:0 --secret-file "$d/secret" --port-file "$d/port" --interval 0.3 \
    --deadlock-timeout 0 >"$d/top.out" 2>&1 &
top=$!
wait_for_file "$d/port" 10 || fail "top --listen wrote no --port-file: $(head -3 "$d/top.out")"
port=$(cat "$d/port")
expect 1 "^mpilens top: --listen: cannot listen on 127.0.0.1:$port: Address already in use" "top port in use" -- \
    "${T[@]}" --listen "$port" --secret-file "$d/secret"
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    p=$(prog "$impl" deadlock_recvrecv) || continue
    expect 2 "^mpilens run: --listen: cannot listen on 127.0.0.1:$port: Address already in use" "run port in use" -- \
        "$MPILENS" run --listen "127.0.0.1:$port" --mpi=$impl -n 2 -o "$d/run-$impl" "$p"
    [ -e "$d/run-$impl" ] && soft_fail "run --listen on a port in use created a run directory"
    expect 2 "^mpilens run: --listen: 'x:y' is not \[ADDRESS:\]PORT" "run bad --listen" -- \
        "$MPILENS" run --listen x:y --mpi=$impl -n 2 -o "$d/run-$impl" "$p"
    break
done
expect 1 "127.0.0.1:$port rejected this agent: authentication failed" "agent with another secret" -- \
    "${A[@]}" --connect "127.0.0.1:$port" --secret-file "$d/other" "$d/run"
sleep 0.5
grep -q "rejected a connection: authentication failed (wrong secret), from 127.0.0.1:" "$d/top.out" ||
    soft_fail "top: no rejection message: $(grep -v '^ \|^WHO\|^$' "$d/top.out" | tail -3 | tr '\n' '|')"
# a client that is not an agent
printf 'GET / HTTP/1.0\r\n\r\n%40s' "" >/dev/tcp/127.0.0.1/"$port" 2>/dev/null
sleep 0.5
grep -q "refused a connection that is not an mpilens agent from 127.0.0.1:" "$d/top.out" ||
    soft_fail "top: no message for a client that is not an agent"
assert_contains "$(tail -3 "$d/top.out")" "0 ranks" "top after rejected connections: no rank"
kill -TERM $top
wait_pid $top 10 || { soft_fail "top --listen did not end on SIGTERM"; kill -9 $top; }
