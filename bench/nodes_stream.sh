#!/usr/bin/env bash
# bench/nodes_stream.sh — what the live view across nodes costs: bytes on the
# wire per refresh per rank, and the CPU of the front end, for RANKS ranks
# sent by N node agents (mpilens agent -> mpilens top --listen, over loopback
# TCP), beside the local-file baseline (mpilens top DIR reading the same rank
# files).
#
#   bench/nodes_stream.sh [RANKS [AGENTS...]]     default: 1024 1 4 16
#   bench/nodes_stream.sh 16384 16 256             the 16,384-rank view fed by 256 agents
#                                                  of 64 ranks: the nodes MPILENS_NODE_SIZE=64
#                                                  makes mpilens run start on one machine
#   SCENARIOS=hung (or busy) runs one scenario only (default: both)
#
# The ranks are a synthetic run directory (bench/gen_ranks.c --live, the
# "mixed" job: most ranks in MPI_Waitall or MPI_Bcast, some computing,
# polling, multi-threaded, died, exited, finalized).  Two scenarios:
#   hung   nothing changes (a hang, when the view matters most): a frame
#          carries nothing but its header;
#   busy   every running rank completes a call and starts the next one every
#          50 ms (bench/live_churn.c), so every rank changes every refresh.
# Each configuration runs WINDOW seconds (default 12) at one refresh per
# INTERVAL seconds (default 0.5).  Bytes come from the agents' --stats (every
# byte of the TCP payload, tags included): "setup" is everything sent up to
# and including the first frame (rank, names, sites, communicators), "per
# refresh" the later frames, "other" what else came later (the requests of
# ranks that wait, sent once per stable state).  The local baseline reads,
# per rank and refresh, the header and the live slots in use from the page
# cache (no network: that is what the stream replaces when the front end is
# on another host).  CPU is the on-CPU time of the process
# (/proc/PID/schedstat) over the window divided by the refreshes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
[ -x "$MPILENS" ] || { echo "nodes_stream: build first ($MPILENS missing: make)" >&2; exit 1; }
ranks=${1:-1024}
shift || true
agents_list=${*:-1 4 16}
WINDOW=${WINDOW:-12}
INTERVAL=${INTERVAL:-0.5}
work=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-nodesbench.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
CC=${CC:-cc}
"$CC" -O2 -g -o "$work/gen_ranks" "$root/bench/gen_ranks.c"
"$CC" -O2 -o "$work/live_churn" "$root/bench/live_churn.c"
cat >"$work/sizes.c" <<'EOF'
#include <stdio.h>
#include "mlformat.h"
int main(void) { printf("%zu %zu\n", sizeof(struct ml_header), sizeof(struct ml_live)); return 0; }
EOF
"$CC" -I"$root/format" -o "$work/sizes" "$work/sizes.c"
read -r HDR_B SLOT_B < <("$work/sizes")
( umask 077; printf '%064x\n' 42 >"$work/secret" )

cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }

dir=$work/run
"$work/gen_ranks" --live "$dir" "$ranks" mixed $$ >/dev/null
# live slots in use, all ranks (the local reader reads those and the header)
slots=$("$MPILENS" dump "$dir" 2>/dev/null |
    sed -nE 's/^# rank [0-9]+ of [0-9]+: .* ([0-9]+) threads.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
nfiles=$(ls "$dir" | grep -c '^rank-')
local_b=$(awk -v h="$HDR_B" -v s="$SLOT_B" -v n="$nfiles" -v t="$slots" 'BEGIN { printf "%.0f", (n * h + t * s) / n }')

churn() {  # SCENARIO: start the churn for the window (busy) or nothing
    if [ "$1" = busy ]; then
        "$work/live_churn" "$dir" $((WINDOW + 6)) 50 >/dev/null &
        pids+=($!)
        CHURN=$!
    else
        CHURN=
    fi
}
stop_churn() {
    if [ -n "$CHURN" ]; then
        kill "$CHURN" 2>/dev/null || true
        wait "$CHURN" 2>/dev/null || true
    fi
}

# local baseline: mpilens top DIR for the window
local_run() {  # SCENARIO -> "cpu_ms_per_refresh"
    churn "$1"
    "$MPILENS" top "$dir" --interval "$INTERVAL" --deadlock-timeout 0 --width 200 >/dev/null 2>&1 &
    local top=$!
    pids+=($top)
    sleep 1
    local c0 t0 c1 t1
    c0=$(cpu_ns $top); t0=$(date +%s.%N)
    sleep "$WINDOW"
    c1=$(cpu_ns $top); t1=$(date +%s.%N)
    kill $top 2>/dev/null || true
    wait $top 2>/dev/null || true
    stop_churn
    awk -v c="$((c1 - c0))" -v t0="$t0" -v t1="$t1" -v i="$INTERVAL" 'BEGIN { printf "%.3f", c / 1e6 / ((t1 - t0) / i) }'
}

# streams: top --listen and N agents for the window
stream_run() {  # SCENARIO N -> "setup_B/rank refresh_B/rank other_B/rank fe_ms agent_ms"
    local sc=$1 n=$2
    rm -f "$work/port"
    churn "$sc"
    "$MPILENS" top --listen 127.0.0.1:0 --secret-file "$work/secret" --port-file "$work/port" \
        --interval "$INTERVAL" --deadlock-timeout 0 --width 200 >/dev/null 2>"$work/fe.err" &
    local fe=$!
    pids+=($fe)
    for _ in $(seq 1 50); do [ -s "$work/port" ] && break; sleep 0.1; done
    local port; port=$(cat "$work/port")
    local per=$(((ranks + n - 1) / n)) k ag=() lo hi
    # the agents' set-up (each reads its rank files, sends names, sites and
    # communicators) must be over before the window opens: with 256 agents
    # starting at once it took more than the 1 s once allowed here, and the
    # window counted it as steady-state CPU.  1 s, plus 1 s per 16 agents.
    local settle=$((1 + n / 16))
    local nfr; nfr=$(awk -v w="$WINDOW" -v s="$settle" -v i="$INTERVAL" 'BEGIN { printf "%d", (w + s) / i + 1 }')
    for ((k = 0; k < n; k++)); do
        lo=$((k * per)); hi=$(((k + 1) * per - 1)); [ $hi -ge $ranks ] && hi=$((ranks - 1))
        "$MPILENS" agent --connect "127.0.0.1:$port" --secret-file "$work/secret" --ranks "$lo-$hi" \
            --interval "$INTERVAL" --frames "$nfr" --stats "$dir" 2>"$work/agent-$k.err" &
        ag+=($!)
        pids+=($!)
    done
    sleep "$settle"   # setup done (first frame), measure the steady state
    local c0 t0 c1 t1 a0=0 a1=0 p
    c0=$(cpu_ns $fe); t0=$(date +%s.%N)
    for p in "${ag[@]}"; do a0=$((a0 + $(cpu_ns "$p"))); done
    sleep $(awk -v w="$WINDOW" 'BEGIN { print w - 1.5 }')
    c1=$(cpu_ns $fe); t1=$(date +%s.%N)
    for p in "${ag[@]}"; do a1=$((a1 + $(cpu_ns "$p"))); done
    for p in "${ag[@]}"; do wait "$p" || true; done
    kill $fe 2>/dev/null || true
    wait $fe 2>/dev/null || true
    stop_churn
    cat "$work"/agent-*.err | awk -v c="$((c1 - c0))" -v a="$((a1 - a0))" -v t0="$t0" -v t1="$t1" \
        -v i="$INTERVAL" -v n="$n" '
        /^agent stats:/ {
            for (k = 3; k <= NF; k++) { split($k, kv, "="); v[kv[1]] = kv[2] }
            fr = v["frames"] - 1; first += v["first_bytes"]; later += v["later_bytes"]
            frames += v["frame_bytes"] - v["first_frame"]; nr += v["ranks"]
        }
        END {
            refreshes = (t1 - t0) / i
            printf "%.1f %.2f %.1f %.3f %.3f %d\n", first / nr, frames / (fr > 0 ? fr : 1) / nr, (later - frames) / nr,
                c / 1e6 / refreshes, a / 1e6 / refreshes / n, nr
        }'
    rm -f "$work"/agent-*.err
}

echo "live view across nodes: $ranks ranks, refresh every ${INTERVAL}s, ${WINDOW}s per run ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
fmt='%-6s %-16s %10s %12s %10s %11s %10s %10s\n'
printf "$fmt" scenario source "setup" "per refresh" "other" "front end" "ratio" "agent"
printf "$fmt" "" "" "B/rank" "B/rank" "B/rank" "ms CPU/ref" "bytes" "ms CPU/ref"
for sc in ${SCENARIOS:-hung busy}; do
    lcpu=$(local_run $sc)
    printf "%-6s %-16s %10s %12s %10s %11s %10s %10s\n" $sc "local files" "-" "$local_b" "-" "$lcpu" "1" "-"
    for n in $agents_list; do
        read -r setup pr other fe ag nr < <(stream_run $sc "$n")
        [ "$nr" = "$nfiles" ] || echo "  (only $nr of the $nfiles ranks with a file were sent)"
        ratio=$(awk -v a="$pr" -v b="$local_b" 'BEGIN { printf (a > 0 ? "1/%.0f" : "0"), b / (a > 0 ? a : 1) }')
        printf "%-6s %-16s %10s %12s %10s %11s %10s %10s\n" $sc "$n agent$([ "$n" = 1 ] || echo s)" "$setup" "$pr" \
            "$other" "$fe" "$ratio" "$ag"
    done
done
echo "per refresh: stream bytes per rank per refresh (frames after the first, headers and tags included);"
echo "local files: bytes the local reader touches per rank and refresh (header $HDR_B B + $SLOT_B B per live slot)."
echo "ratio: stream bytes / local bytes per rank and refresh; agent: CPU per refresh of one agent."
