#!/usr/bin/env bash
# Run 268 (session 52): on an H200, the tree's first H200 tables since run 243 (session 43) with
# the row-tile warps decode kernel, session 51's merge and its one-CTA-per-SM dense plan: all GPU
# tests (tests/gpu.rs, ~335 s on the H200 since session 44), then the whole benchmark (~85 s on an
# H100 in run 264) and the d = 256 timings. On an H100 (run 264 has its tables, run 265 its
# tests) nothing but the GPU's name is logged.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
case "$gpu" in
  *H200*) ;;
  *) echo "left out on $gpu" | tee -a "$LOG"; exit 0 ;;
esac
precompile
BENCH_TIMEOUT=200 bench_logged
python3 bench/report.py "$OUT/bench.json" 2>/dev/null | head -80
step "head dim 256"
timeout 80 python3 bench/head_dim_256.py target/device/libblasst.so > "$OUT/d256.log" 2>&1
echo "head_dim_256 exit $?" | tee -a "$LOG"
grep -E "^(prefill|decode)" "$OUT/d256.log"
GPU_TESTS_TIMEOUT=$((590 - SECONDS)) gpu_tests
