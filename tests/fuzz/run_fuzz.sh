#!/usr/bin/env bash
# tests/fuzz/run_fuzz.sh [SECONDS] — fuzz the rank-file reader and the
# analysis for a bounded time (default 60 s) with libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer.  Starts from tests/fuzz/corpus/ (left as it
# is: new inputs go to a scratch copy).  Exit status 0: no crash, leak,
# timeout or sanitizer report; otherwise the input that failed is in
# build/fuzz/ and its name is printed.  CI calls this.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null || { echo "run_fuzz: $CLANG not found (Debian package clang); cannot fuzz" >&2; exit 2; }
out=$root/build/fuzz
mkdir -p "$out"
"$CLANG" -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/format" -I"$root/analysis" -o "$out/fuzz_reader" \
    "$root/tests/fuzz/fuzz_reader.c" "$root/format/reader.c" "$root"/analysis/*.c -lz -lm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root"/tests/fuzz/corpus/* "$work/"
echo "run_fuzz: fuzzing the reader and the analysis for $secs s"
if "$out/fuzz_reader" -max_total_time="$secs" -max_len=32768 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$out/" "$work" >"$out/fuzz.log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/fuzz.log" | sed 's/^/run_fuzz: /'
    echo "run_fuzz: ok, no failure"
else
    tail -40 "$out/fuzz.log"
    echo "run_fuzz: FAILED; the input is $(ls -t "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* 2>/dev/null | head -1)"
    exit 1
fi
