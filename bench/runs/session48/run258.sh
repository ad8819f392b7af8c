#!/usr/bin/env bash
# Run 258 (session 48): bench/bench.py --decode-only on the final tree (the decode and
# speculative-decode tables, the latter now on the row-tile warps kernel, contiguous and paged;
# device copy measured in the same run), with the SM clock logged.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
BENCH_TIMEOUT=280 bench_logged --decode-only  # (common.sh since the session's review: the same commands)
python3 bench/report.py "$OUT"/bench.json 2>/dev/null | head -60 | tee -a "$LOG"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
# (Run 258's call added this A/B after the script, in its command line: the fix's cost, 8 tokens
# x GQA 4, target/device-old carried too.)
step "A/B old vs fixed, 8 tokens x GQA 4"
timeout 200 python3 bench/ab_decode.py target/device-old/libblasst.so target/device/libblasst.so --tokens 8 \
  --size 4x32768 --size 16x16384 > "$OUT/ab-decode.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
