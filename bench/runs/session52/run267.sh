#!/usr/bin/env bash
# Run 267 (session 52): session 51's run 266 (the calibration-sweep GPU test with the portable
# kernels and with BLASST_DECODE_WARPS=0, after its 8-row-tile assertion was limited to calls that
# run the row-tile warps kernel), then, on an H200 only, the whole benchmark and the d = 256
# timings: the first H200 tables of the tree with the warps decode kernel, session 51's merge and
# its one-CTA-per-SM dense plan (run 243 is the H200 reference until then). On an H100 the
# benchmark is left out (run 264 has it for this tree).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
# (run 266 precompiles, then runs the sweep test twice, into $OUT/gpu-tests.log.)
OUT=$OUT bash bench/runs/session51/run266.sh
case "$gpu" in
  *H200*)
    BENCH_TIMEOUT=$((560 - SECONDS)) bench_logged
    python3 bench/report.py "$OUT/bench.json" 2>/dev/null | head -80
    if [ "$SECONDS" -lt 480 ]; then
      step "head dim 256"
      timeout $((590 - SECONDS)) python3 bench/head_dim_256.py target/device/libblasst.so > "$OUT/d256.log" 2>&1
      echo "head_dim_256 exit $?" | tee -a "$LOG"
      grep -E "^(prefill|decode)" "$OUT/d256.log"
    fi ;;
  *) echo "benchmark left out on $gpu" | tee -a "$LOG" ;;
esac
