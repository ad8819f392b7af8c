#!/usr/bin/env bash
# Run 213 (session 36): K and V with their own ring barriers in the contiguous d = 256 Hopper
# prefill (kernels/prefill_sm90.cu KV_SPLIT). target/device: the split; target/device-base:
# 5995a46 (one barrier pair per slot). Prediction: with a ring of two slots, K_{t+1} had waited
# for P V_{t-1}'s release and then a 64 KB copy every visit, so d = 256 contiguous prefill dense
# +15-30 % (406-504 TFLOP/s before), Skip-Softmax faster by as much or more; d = 160 (padded
# onto the d = 256 kernel) alike; d <= 128 and paged: the same cubins as before (nvdisasm).
source bench/runs/common.sh
step "precompile (160, 256)"
timeout 120 target/device/blasst precompile --head-dims 160,256 > "$OUT/precompile.log" 2>&1
echo "precompile exit $?" | tee -a "$LOG"
step "check_prefill"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
tail -3 "$OUT/check.log" | tee -a "$LOG"
step "gpu tests at d = 256, padded 160"
BLASST_TEST_HEAD_DIMS=256 BLASST_TEST_PADDED_HEAD_DIMS=160 timeout 200 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
AB_TIMEOUT=150 ab "d = 256" --d256
AB_TIMEOUT=120 ab "d = 160" --d 160
step done
