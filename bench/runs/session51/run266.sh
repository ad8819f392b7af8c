#!/usr/bin/env bash
# Run 266 (session 51): the calibration-sweep GPU test with the portable kernels
# (BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma) and with BLASST_DECODE_WARPS=0, after its
# 8-row-tile assertion was limited to calls that run the row-tile warps kernel (run 265: the
# assertion failed with the portable kernels, whose plan has one 32-row tile, before the sweep's
# counts were compared; the assertion dates from session 45 and no full portable-kernel run had
# reached it since).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
for sw in "BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma" "BLASST_DECODE_WARPS=0"; do
  step "calibration sweep test, $sw"
  echo "===== $sw" >> "$OUT/gpu-tests.log"
  env $sw timeout 200 target/device/gpu_tests --test-threads=1 --nocapture calibration_sweep >> "$OUT/gpu-tests.log" 2>&1
  echo "sweep test ($sw) exit $?" | tee -a "$LOG"
  grep -E "test result|panicked" "$OUT/gpu-tests.log" | tail -2 | tee -a "$LOG"
done
