# The live view across nodes (mpilens agent -> mpilens top --listen / mpilens
# run --listen), on one machine with groups of ranks acting as nodes; both MPIs:
#  1. top --listen with 2 agents (ranks 0-1 and 2-3 of a 4-rank job that
#     deadlocks): the table shows all 4 ranks from 2 node streams, with their
#     routines and file:line; the verdict names ranks 0 and 1, their MPI_Recv
#     and file:line; top exits 3, writes DIR/deadlock.txt and has the agents
#     stop the job (each says so; no rank is left);
#  2. an agent with the wrong secret is rejected (a one-line message from top,
#     the agent exits 1 and says so, no rank is shown); then 2 good agents: the
#     table is the one `mpilens top DIR` shows from the files (WHO, WHAT,
#     WHERE); an agent stopped (SIGSTOP) makes its ranks stale until it
#     resumes; an agent killed (SIGKILL) makes its ranks stale for good, the
#     others are still shown;
#  3. mpilens run --listen 127.0.0.1:0: with MPILENS_NODE_SIZE=2 (3 ranks:
#     nodes {0,1} and {2}) on a collective with a missing rank, and with
#     MPILENS_NODE_SIZE=1 on an MPI_Waitall deadlock (its requests travel in
#     the stream): exit 86, the verdict names ranks, routines and lines, one
#     agent per node; a correct program (3 ranks, nodes {0,1} and {2}) exits 0
#     and its agents end by themselves without an error; no rank and no agent
#     is left running.
# timeout: 600
need_mpilens
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

wait_grep() {  # FILE PATTERN SECONDS [FROM-LINE]: 0 once FILE (from line FROM-LINE on) matches PATTERN
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        tail -n +"${4:-1}" "$1" 2>/dev/null | grep -Eq -- "$2" && return 0
        sleep 0.1
    done
    return 1
}
lines_of() { wc -l <"$1"; }
start_job() {  # IMPL DIR N PROG: in the background, its pid in JOB
    local rt; rt=$(runtime_of "$1")
    case $1 in
    openmpi) MPILENS_DIR=$2 LD_PRELOAD=$rt timeout 120 mpirun.openmpi --oversubscribe -n "$3" "$4" >"$2.job" 2>&1 & ;;
    mpich) MPILENS_DIR=$2 LD_PRELOAD=$rt timeout 120 mpirun.mpich -n "$3" "$4" >"$2.job" 2>&1 & ;;
    esac
    JOB=$!
}
rank_pids() {  # DIR: the process ids of its ranks (from the rank files)
    "$MPILENS" dump "$1" 2>/dev/null | sed -nE 's/^# rank [0-9]+ of [0-9]+: pid ([0-9]+) .*/\1/p'
}
ranks_left() {  # DIR: the rank processes of DIR still running
    local p left=
    for p in $(rank_pids "$1"); do
        [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && left="$left $p"
    done
    echo $left
}
end_job() {  # DIR WHAT: no rank of DIR may be running; stop what is left (the launcher in JOB)
    local left; left=$(ranks_left "$1")
    if [ -n "$left" ]; then
        soft_fail "$2: rank processes left running: $left"
        kill -9 $left 2>/dev/null
    fi
    [ -n "${JOB:-}" ] && { kill_tree "$JOB"; wait "$JOB" 2>/dev/null; }
    JOB=
}
agents_left() {  # DIR: the pids of agents working on DIR
    pgrep -f "mpilens agent .*$1\$" | tr '\n' ' '
}
table() {  # FILE: the last table of the top output FILE, without the WHEN column
    awk '/^mpilens top/ { blk = ""; next } /^WHO / { w = index($0, "WHEN"); next }
         /^$/ { next } /^(DEADLOCK|  |mpilens)/ { next }
         { s = w ? substr($0, 1, w - 1) : $0; sub(/ +$/, "", s); blk = blk s "\n" } END { printf "%s", blk }' "$1"
}
last_block() {  # FILE: the last header and table of FILE
    awk '/^mpilens top/ { blk = "" } { blk = blk $0 "\n" } END { printf "%s", blk }' "$1"
}

JOB=
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    p=$(prog "$impl" deadlock_recvrecv) || continue
    src=$ROOT/tests/programs/deadlock_recvrecv.c
    L=$(line_of "$src" L_RECV)
    F=$(line_of "$src" MPI_Finalize)

    # ---- 1. two agents, one front end, a deadlock ----------------------------
    start_job "$impl" "$d/j1" 4 "$p"
    timeout 60 "$MPILENS" top --listen 127.0.0.1:0 --secret-file "$d/secret" --port-file "$d/port1" \
        --deadlock-timeout 3 --stop --interval 0.5 --width 200 "$d/j1" >"$d/top1.out" 2>&1 &
    top=$!
    wait_for_file "$d/port1" 10 || soft_fail "$impl: top --listen wrote no --port-file"
    port=$(cat "$d/port1")
    [ "$(stat -c %a "$d/secret")" = 600 ] || soft_fail "$impl: the secret file is not mode 600"
    # (an agent needs its run directory: wait for the job to make it; slow under load)
    for i in $(seq 1 150); do [ "$(ls "$d/j1" 2>/dev/null | grep -c '^rank-')" = 4 ] && break; sleep 0.2; done
    "$MPILENS" agent --connect "127.0.0.1:$port" --secret-file "$d/secret" --ranks 0-1 --interval 0.5 "$d/j1" \
        >"$d/a1.out" 2>&1 &
    a1=$!
    "$MPILENS" agent --connect "127.0.0.1:$port" --secret-file "$d/secret" --ranks 2-3 --interval 0.5 "$d/j1" \
        >"$d/a2.out" 2>&1 &
    a2=$!
    wait_pid $top 70 || { soft_fail "$impl: top --listen did not end"; kill -9 $top; }
    rc=$WAIT_RC
    assert_eq 3 "$rc" "$impl top --listen: exit status (deadlock)"
    out=$(cat "$d/top1.out")
    assert_contains "$out" "4 ranks: 4 in MPI | no progress for" "$impl top --listen: all 4 ranks from 2 agents"
    assert_contains "$out" "| 2 node streams |" "$impl top --listen: header"
    tb=$(table "$d/top1.out")
    echo "$tb" | grep -Eq "^0-1 +MPI_Recv from .* tag 7 +deadlock_recvrecv.c:$L$" ||
        soft_fail "$impl top --listen: no row for ranks 0-1 in MPI_Recv at line $L: $tb"
    echo "$tb" | grep -Eq "^2-3 +MPI_Finalize +deadlock_recvrecv.c:$F$" ||
        soft_fail "$impl top --listen: no row for ranks 2-3 in MPI_Finalize at line $F: $tb"
    assert_contains "$out" "rank 0: MPI_Recv from 1 tag 7 at deadlock_recvrecv.c:$L" "$impl top --listen: verdict"
    assert_contains "$out" "rank 1: MPI_Recv from 0 tag 7 at deadlock_recvrecv.c:$L" "$impl top --listen: verdict"
    assert_contains "$out" "cycle: rank 0 -> rank 1 -> rank 0" "$impl top --listen: verdict"
    assert_contains "$out" "asked 2 node agents to stop 4 ranks" "$impl top --listen --stop"
    assert_contains "$out" "stopped the job" "$impl top --listen"
    assert_file "$d/j1/deadlock.txt" "$impl top --listen: DIR/deadlock.txt"
    wait_pid $a1 10 || { soft_fail "$impl: agent 0-1 still running after the job ended"; kill -9 $a1; }
    wait_pid $a2 10 || { soft_fail "$impl: agent 2-3 still running after the job ended"; kill -9 $a2; }
    assert_contains "$(cat "$d/a1.out")" "the front end stopped the job: SIGTERM to 2 ranks of this node (0-1)" \
        "$impl agent 0-1"
    # (ranks 2-3 wait in MPI_Finalize: one or both may have ended before the stop
    # came; MPICH's MPI_Finalize can return while ranks 0-1 are still blocked)
    grep -qE "the front end stopped the job: SIGTERM to (2 ranks of this node \(2-3\)|1 rank of this node \([23]\)|0 ranks of this node \(none left\))" "$d/a2.out" ||
        soft_fail "$impl agent 2-3: no stop of its ranks in: $(head -3 "$d/a2.out" | tr '\n' '|')"
    wait_pid "$JOB" 15 || soft_fail "$impl: the job did not end after the agents stopped it"
    end_job "$d/j1" "$impl top --listen --stop"

    # ---- 2. wrong secret; the table; an agent stopped, then killed -----------------
    start_job "$impl" "$d/j2" 4 "$p"
    timeout 90 "$MPILENS" top --listen 0 --secret-file "$d/secret" --port-file "$d/port2" \
        --deadlock-timeout 0 --interval 0.5 --width 200 >"$d/top2.out" 2>&1 &
    top=$!
    wait_for_file "$d/port2" 10
    port=$(cat "$d/port2")
    for i in $(seq 1 100); do [ "$(ls "$d/j2" 2>/dev/null | grep -c '^rank-')" = 4 ] && break; sleep 0.2; done
    ( umask 077; printf '%064x\n' 12345 >"$d/wrong" )
    "$MPILENS" agent --connect "127.0.0.1:$port" --secret-file "$d/wrong" --interval 0.5 "$d/j2" >"$d/bad.out" 2>&1
    rc=$?
    assert_eq 1 "$rc" "$impl wrong secret: agent exit status"
    assert_contains "$(cat "$d/bad.out")" "rejected this agent: authentication failed" "$impl wrong secret: agent"
    assert_eq 1 "$(grep -c . "$d/bad.out")" "$impl wrong secret: lines the agent printed"
    wait_grep "$d/top2.out" "authentication failed \(wrong secret\)" 5 ||
        soft_fail "$impl wrong secret: top printed no rejection: $(tail -3 "$d/top2.out" | tr '\n' ' ')"
    sleep 1
    assert_not_contains "$(cat "$d/top2.out")" "WHO" "$impl wrong secret: nothing may be shown"
    assert_contains "$(cat "$d/top2.out")" "no rank yet" "$impl wrong secret: top"
    "$MPILENS" agent --connect "127.0.0.1:$port" --secret-file "$d/secret" --ranks 0-1 --interval 0.5 "$d/j2" \
        >"$d/a3.out" 2>&1 &
    a3=$!
    "$MPILENS" agent --connect "127.0.0.1:$port" --secret-file "$d/secret" --ranks 2-3 --interval 0.5 "$d/j2" \
        >"$d/a4.out" 2>&1 &
    a4=$!
    wait_grep "$d/top2.out" "4 ranks: 4 in MPI.*2 node streams" 20 || soft_fail "$impl: 2 good agents: top never showed 4 ranks"
    sleep 1.2
    # the same table as from the files (mpilens top DIR)
    "$MPILENS" top --once --width 200 "$d/j2" >"$d/local.out" 2>&1
    remote_tb=$(table "$d/top2.out" | sort)      # (groups of the same size: in any order)
    local_tb=$(table "$d/local.out" | sort)
    [ -n "$local_tb" ] && [ "$remote_tb" = "$local_tb" ] ||
        soft_fail "$impl: the table from the streams differs from the one from the files: streams [$remote_tb] files [$local_tb]"
    # an agent that stops sending: stale until it resumes
    kill -STOP $a3
    wait_grep "$d/top2.out" "went silent: its ranks 0-1 are stale until it resumes" 15 ||
        soft_fail "$impl: stopped agent: no message"
    k=$(lines_of "$d/top2.out")
    wait_grep "$d/top2.out" "4 ranks: 2 in MPI, 2 stale" 5 "$k" || soft_fail "$impl: stopped agent: its ranks never went stale"
    echo "$(last_block "$d/top2.out")" | grep -Eq '^0-1 +stale: the stream from host' ||
        soft_fail "$impl: stopped agent: ranks 0-1 not shown stale: $(last_block "$d/top2.out")"
    kill -CONT $a3
    k=$(lines_of "$d/top2.out")
    wait_grep "$d/top2.out" "4 ranks: 4 in MPI" 10 "$k" || soft_fail "$impl: resumed agent: its ranks are still stale"
    # an agent killed: stale for good; the other agent's ranks still shown
    kill -9 $a4
    wait $a4 2>/dev/null
    wait_grep "$d/top2.out" "4 ranks: 2 in MPI, 2 stale" 15 || soft_fail "$impl: killed agent: its ranks never went stale"
    sleep 1
    kill $top
    wait $top
    out=$(cat "$d/top2.out")
    assert_contains "$out" "lost the stream of the agent on" "$impl killed agent: top says so"
    last=$(last_block "$d/top2.out")
    assert_contains "$last" "2 in MPI, 2 stale" "$impl killed agent: last table"
    assert_contains "$last" "1 node stream |" "$impl killed agent: last header"
    echo "$last" | grep -Eq '^2-3 +stale: the stream from host' || soft_fail "$impl killed agent: ranks 2-3 not stale: $last"
    echo "$last" | grep -Eq "^0-1 +MPI_Recv .*deadlock_recvrecv.c:$L" || soft_fail "$impl killed agent: ranks 0-1 not shown: $last"
    wait_pid $a3 10 || { soft_fail "$impl: agent 0-1 still running after top ended"; kill -9 $a3; }
    kill -9 $(ranks_left "$d/j2") 2>/dev/null
    wait_pid "$JOB" 15
    end_job "$d/j2" "$impl part 2"

    # ---- 3. mpilens run --listen, groups of ranks as nodes ------------------------
    p=$(prog "$impl" deadlock_coll_missing) || continue
    src=$ROOT/tests/programs/deadlock_coll_missing.c
    L=$(line_of "$src" L_ALLREDUCE); S=$(line_of "$src" L_SKIP)
    MPILENS_NODE_SIZE=2 timeout 120 "$MPILENS" run --listen 127.0.0.1:0 --mpi=$impl -n 3 -o "$d/r1" \
        --deadlock-timeout 3 --monitor snapshots "$p" >"$d/r1.out" 2>"$d/r1.err"
    rc=$?
    assert_eq 86 "$rc" "$impl run --listen: exit status"
    err=$(cat "$d/r1.err")
    assert_contains "$err" "streaming to 127.0.0.1:" "$impl run --listen"
    assert_contains "$err" "3 ranks: 3 in MPI" "$impl run --listen: table"
    assert_contains "$err" "| 2 node streams |" "$impl run --listen: header"
    assert_contains "$err" "rank 0: MPI_Allreduce on MPI_COMM_WORLD at deadlock_coll_missing.c:$L" "$impl run --listen: verdict"
    assert_contains "$err" "rank 2 never arrives: rank 2 in MPI_Recv from 0 tag 11 at deadlock_coll_missing.c:$S" "$impl run --listen: verdict"
    assert_contains "$err" "stopped the job" "$impl run --listen"
    assert_file "$d/r1/deadlock.txt" "$impl run --listen: verdict file"
    n=$(ls "$d/r1" | grep -c '^agent-.*\.log$')
    assert_eq 2 "$n" "$impl run --listen: agents (one per node of 2 ranks)"
    [ -e "$d/r1/agent-0.log" ] && [ -e "$d/r1/agent-2.log" ] || soft_fail "$impl run --listen: agent logs $(ls "$d/r1")"
    assert_contains "$("$MPILENS" report --failures "$d/r1" 2>&1)" "stopped by the deadlock detector" "$impl run --listen: failure records"
    end_job "$d/r1" "$impl run --listen"

    p=$(prog "$impl" deadlock_waitall) || continue
    src=$ROOT/tests/programs/deadlock_waitall.c
    L=$(line_of "$src" L_WAITALL); I=$(line_of "$src" L_IRECV)
    MPILENS_NODE_SIZE=1 timeout 120 "$MPILENS" run --listen 127.0.0.1:0 --mpi=$impl -n 2 -o "$d/r2" \
        --deadlock-timeout 3 --monitor off "$p" >"$d/r2.out" 2>"$d/r2.err"
    rc=$?
    assert_eq 86 "$rc" "$impl run --listen waitall: exit status"
    err=$(cat "$d/r2.err")
    assert_contains "$err" "rank 0: MPI_Waitall of 2 requests at deadlock_waitall.c:$L" "$impl run --listen waitall: verdict"
    assert_contains "$err" "request: receive from 1 tag 99 (MPI_Irecv at deadlock_waitall.c:$I)" "$impl run --listen waitall: requests from the stream"
    n=$(ls "$d/r2" | grep -c '^agent-.*\.log$')
    assert_eq 2 "$n" "$impl run --listen waitall: agents (one per rank)"
    end_job "$d/r2" "$impl run --listen waitall"

    p=$(prog "$impl" ok_chain) || continue
    MPILENS_NODE_SIZE=2 timeout 120 "$MPILENS" run --listen 127.0.0.1:0 --mpi=$impl -n 3 -o "$d/r3" \
        --deadlock-timeout 1 --monitor snapshots "$p" >"$d/r3.out" 2>"$d/r3.err"
    rc=$?
    assert_eq 0 "$rc" "$impl run --listen, a correct program: exit status"
    assert_contains "$(cat "$d/r3.out")" "ok_chain done" "$impl run --listen, a correct program: its output"
    err=$(cat "$d/r3.err")
    assert_not_contains "$err" "DEADLOCK" "$impl run --listen, a correct program"
    assert_contains "$err" "computing" "$impl run --listen, a correct program: rank 2 computing, from its stream"
    assert_not_contains "$err" "stale" "$impl run --listen, a correct program"
    for f in "$d/r3"/agent-*.log; do
        [ -s "$f" ] && soft_fail "$impl run --listen, a correct program: $(basename "$f"): $(head -c 300 "$f")"
    done
    end_job "$d/r3" "$impl run --listen, a correct program"

    sleep 1
    for r in j1 j2 r1 r2 r3; do
        left=$(agents_left "$d/$r")
        [ -z "$left" ] || { soft_fail "$impl: agents left running on $r: $left"; kill -9 $left; }
    done
    note "$impl: done"
done
