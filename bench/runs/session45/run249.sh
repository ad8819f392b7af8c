#!/usr/bin/env bash
# Run 249 (session 45): TMA copies in the Hopper decode kernel over contiguous caches at d = 128
# (kernels/decode_sm90.cu DECODE_TMA; the tiles in TMA's layout). A smoke test of the dense
# decode layouts at d = 128, then one library with the TMA copies off (BLASST_DECODE_TMA=0:
# cp.async into the new layout) against on for speculative decode (spec_ab), then one-token
# decode against the tree before (target/device-base: cd95ac9).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
precompile target/device-base
step "gpu test: dense at d = 128"
BLASST_TEST_HEAD_DIMS=128 timeout 150 target/device/gpu_tests --test-threads=1 dense_matches_cpu_and_float64 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
spec_ab tma BLASST_DECODE_TMA
step "ab decode: one token, base vs new"
timeout 120 python3 bench/ab_decode.py target/device-base/libblasst.so target/device/libblasst.so:BLASST_DECODE_TMA=0 target/device/libblasst.so \
  --size 1x131072 --size 16x32768 --size 64x8192 > "$OUT/one-token-ab-decode.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
