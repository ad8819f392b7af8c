#!/usr/bin/env bash
# Run 299b (session 58): run 299's A/B alone (tree | S_AHEAD), for the ~4 device minutes that
# three failed starts left. No precompile (the A/B compiles its four kernels on first use).
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
step "A/B: tree | S_AHEAD"
mkdir -p target/device-sa && cp target/device/libblasst.so target/device-sa/
timeout 170 python3 bench/ab_prefill.py target/device/libblasst.so \
  target/device-sa/libblasst.so:BLASST_PREFILL_S_AHEAD=1 > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
tail -40 "$OUT/ab.log"
