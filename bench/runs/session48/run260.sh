#!/usr/bin/env bash
# Run 260 (session 48): the whole benchmark (bench/bench.py: prefill, paged prefill, decode,
# speculative decode) on the final tree, SM clock logged, on whichever card is lent.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "benchmark"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -l 1 > "$OUT/smi.log" 2>&1 &
smi=$!
BENCH_NAME=bench timeout "${BENCH_TIMEOUT:-420}" python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$LOG"
kill $smi 2>/dev/null
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
