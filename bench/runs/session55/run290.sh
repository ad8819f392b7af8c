#!/usr/bin/env bash
# Run 290 (session 55, either card): on an H200, run 287. Otherwise run 288's four kernels again
# (cuDNN's SDPA prefill and blasst dense, 4K and 16K, one call each) with the warp-state section
# and the raw page: the stall reasons per issued instruction of each, side by side
# ($OUT/stalls.csv), to say where cuDNN's ~5 % inside the loop comes from.
set -uo pipefail
source bench/runs/common.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*) exec bash bench/runs/session55/run287.sh ;;
esac
run_start
step "ncu sdpa-prefill, warp states (raw)"
timeout 300 ncu --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
  -k "regex:sdpa|prefill90" -c 8 -o /tmp/stalls \
  python3 bench/profile_one.py target/device/libblasst.so sdpa-prefill > "$OUT/stalls-ncu.log" 2>&1
echo "ncu exit $?" | tee -a "$LOG"
ncu -i /tmp/stalls.ncu-rep --page raw --csv > "$OUT/stalls-raw.csv" 2>/dev/null
ls -la "$OUT" | tee -a "$LOG"
