#!/usr/bin/env bash
# Run 210 (session 35): run 209 again with the rule it led to. target/device: the L2 prefetch
# hint dropped only where DIM % 64 == 32 (96, 160); target/device-nohint: run 209's build (no hint
# wherever DIM % 64 != 0); target/device-base: 78e4a3d (hint everywhere). Prediction: at d = 96
# and 160 device = nohint, both 3-8 % faster than base at 16 x 16K, 16 x 32K and 64 x 8K dense,
# 1-4 % slower at 1 x 64K; at d = 80 and 40 device = base (same code), and the repeat of
# nohint vs base shows whether run 209's d = 80/40 differences were noise.
source bench/runs/common.sh
step "precompile padded head dims"
timeout 150 target/device/blasst precompile --head-dims 40,72,80,96,120,160,224 > "$OUT/precompile-padded.log" 2>&1
echo "precompile padded exit $?" | tee -a "$LOG"
step "padded gpu tests (Hopper kernels)"
BLASST_TEST_PADDED_HEAD_DIMS=40,72,80,96,120,160 timeout 200 target/device/gpu_tests --test-threads=1 --nocapture padded merge_states > "$OUT/gpu-tests-padded.log" 2>&1
echo "padded gpu tests exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests-padded.log" | head -5 | tee -a "$LOG"
for d in 96 160 80 40; do
  step "ab decode d = $d"
  echo "===== d = $d" >> "$OUT/ab-decode.log"
  PYTHONUNBUFFERED=1 timeout 120 python3 bench/ab_decode.py target/device-base/libblasst.so target/device-nohint/libblasst.so target/device/libblasst.so --d $d \
    --size 1x65536 --size 16x16384 --size 16x32768 --size 64x8192 >> "$OUT/ab-decode.log" 2>&1
  echo "ab decode d = $d exit $?" | tee -a "$LOG"
done
step done
