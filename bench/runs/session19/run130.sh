#!/usr/bin/env bash
# Run 130: run 129's rule without the plans of 3-4 splits (4x16K: clusters of 4 were 35 % slower).
# Interleaved decode A/B of the shipped plan (target/device-head) and the new one (target/device),
# dense on Gaussian inputs next to SDPA, the six sizes and 3x16K (5 splits, merge kernel) and
# 2x32K (8 splits); then the dense GPU tests (dense vs CPU with the GPU's plan and vs float64) and
# the calibration sweep's.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="target/device-head/libblasst.so target/device/libblasst.so"
timeout 150 python3 bench/ab_decode.py $L --gaussian --size 1x131072 --size 16x32768 --size 64x8192 --size 7x8192 \
  --size 8x8192 --size 4x16384 --size 3x16384 --size 2x32768 > "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
grep -E "dense|vs sdpa|exit" "$OUT/ab.log"
timeout 200 target/device/gpu_tests --test-threads=1 --nocapture dense_matches calibration_sweep > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
grep -E "^test |test result|exit|panicked" "$OUT/gpu_tests.log" | tail -6
