#!/usr/bin/env bash
# Run 258 (session 48): bench/bench.py --decode-only on the final tree (the decode and
# speculative-decode tables, the latter now on the row-tile warps kernel, contiguous and paged;
# device copy measured in the same run), with the SM clock logged.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "benchmark (decode only)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -l 1 > "$OUT/smi.log" 2>&1 &
smi=$!
BENCH_NAME=bench timeout 280 python3 bench/bench.py --lib target/device/libblasst.so --decode-only --out "$OUT" > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$LOG"
kill $smi 2>/dev/null
python3 bench/report.py "$OUT"/bench.json 2>/dev/null | head -60 | tee -a "$LOG"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
