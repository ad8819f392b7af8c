#!/usr/bin/env bash
# Run 212 (session 35): dense contiguous decode at d = 96 planned for one CTA per SM, one split
# allowed (src/attn/plan.rs dense_one_cta_per_sm). target/device: the new plan;
# target/device-prev: 6eec846 (two CTAs per SM at d = 96). Prediction (run 211, where
# BLASST_DECODE_UNITS=132 forced it on every call): d = 96 dense contiguous +8-15 % at 16 x 16K,
# 16 x 32K and 1 x 64K, unchanged at 64 x 8K (1 split either way), paged and skip rows unchanged
# (same plan); the cluster-merge sizes keep their plans (4 x 16K: 8 splits); d = 128 unchanged.
source bench/runs/common.sh
step "precompile (64, 96, 128, 256)"
timeout 150 target/device/blasst precompile --head-dims 40,64,80,96,128,160,256 > "$OUT/precompile.log" 2>&1
echo "precompile exit $?" | tee -a "$LOG"
step "gpu tests (all), padded 40,80,96,160"
BLASST_TEST_PADDED_HEAD_DIMS=40,80,96,160 timeout 260 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "ab decode d = 96"
echo "===== d = 96" >> "$OUT/ab-decode.log"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/ab_decode.py target/device-prev/libblasst.so target/device/libblasst.so --d 96 \
  --size 1x131072 --size 1x65536 --size 2x32768 --size 3x16384 --size 4x16384 --size 7x8192 --size 8x8192 \
  --size 16x16384 --size 16x32768 --size 64x8192 >> "$OUT/ab-decode.log" 2>&1
echo "ab decode d = 96 exit $?" | tee -a "$LOG"
step "ab decode d = 128"
echo "===== d = 128" >> "$OUT/ab-decode.log"
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_decode.py target/device-prev/libblasst.so target/device/libblasst.so \
  --size 1x131072 --size 16x32768 --size 64x8192 >> "$OUT/ab-decode.log" 2>&1
echo "ab decode d = 128 exit $?" | tee -a "$LOG"
step done
