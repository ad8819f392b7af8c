#!/usr/bin/env bash
# Run 214 (session 36): run 213's split barriers, now also in the paged d = 256 kernel (two
# producer teams: K's warps and V's warps wait for and publish their own barriers), and the
# padded head dims of the d = 256 kernel up to 192 no longer copy the fourth 64-column box
# (wholly past the head dim: TMA only zero-filled it; DATA_BOXES). target/device-base: 5995a46.
# Predictions: paged d = 256 dense +15-30 % (as contiguous in run 213: +21-46 %); d = 160
# Skip-Softmax no longer flat at ~2.85 ms (8K non-causal: run 213 measured 2.91 / 2.83 / 2.86 ms
# at 50 / 69 / 91 % skipped against 2.93 ms dense) but faster with sparsity, as d = 256 is;
# contiguous d = 256 as in run 213.
source bench/runs/common.sh
step "precompile (160, 256)"
timeout 120 target/device/blasst precompile --head-dims 160,200,256 > "$OUT/precompile.log" 2>&1
echo "precompile exit $?" | tee -a "$LOG"
step "check_prefill"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
tail -1 "$OUT/check.log" | tee -a "$LOG"
paged_check
step "gpu tests at d = 256, padded 160, 200"
BLASST_TEST_HEAD_DIMS=256 BLASST_TEST_PADDED_HEAD_DIMS=160,200 timeout 220 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
AB_TIMEOUT=100 ab "d = 160" --d 160
AB_TIMEOUT=100 ab "d = 256 paged 64" --d256 --paged
AB_TIMEOUT=100 ab "d = 256 paged 16" --d256 --page=16
# d = 128 with the split too (target/device-split128: this tree with KV_SPLIT also at
# HEAD_DIM == 128, contiguous only; a build for this measurement, not in the tree). Prediction:
# with NB = 3 a copy already has a visit of slack, so dense +-1 %; skipped visits are ~0.55 of
# a dense one, so if their copies are exposed, Skip-Softmax +1-4 %.
step "ab d = 128, KV_SPLIT at d = 128"
echo "===== d = 128: device-base, device-split128" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 120 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-split128/libblasst.so >> "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
step done
