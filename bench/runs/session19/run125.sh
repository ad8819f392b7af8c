#!/usr/bin/env bash
# Run 125 (diagnostic): what passing skip_stats costs a prefill call (bench/micro/skip_stats_cost.py;
# bench/bench.py times its Skip-Softmax rows with the counters and its dense rows without).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 200 python3 bench/micro/skip_stats_cost.py target/device-head/libblasst.so > "$OUT/stats.log" 2>&1
echo "exit $?" >> "$OUT/stats.log"
cat "$OUT/stats.log"
