#!/usr/bin/env bash
# Run 292 (session 55, either card): run 291 with the Skip-Softmax kernel alike (run292-pv-overlap.patch: one unconditional P V chain per case of kept halves); the prefill kernels with S_t and P V_{t-1} in separate
# commit groups and P V unconditional (run292-pv-overlap.patch, target/device) against the
# tree (target/device-base): run 290 put ~0.5 of our 6.1 cycles per instruction on a dummy
# wgmma that closes the conditional P V chain, and the softmax waits for P V_{t-1} before its
# row maxima. Prediction: dense +2-8 % (the 512-cycle P V off each warpgroup's chain, against the
# ~1500 of its softmax), Skip-Softmax by about as much where it keeps tiles (run 291: dense alone +4-11 %, the ratios down by
# as much). check_prefill, the A/B (non-causal 4K-32K, then the default cases), then the dense,
# tile-by-tile and bit-identity GPU tests at d = 128 and 64.
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$LOG"
precompile target/device-base
precompile
step "check_prefill (patched)"
timeout 60 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check-prefill.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches" "$OUT/check-prefill.log" | tail -3 | tee -a "$LOG"
AB_TIMEOUT=120 ab "non-causal 4K-32K" --noncausal
AB_TIMEOUT=100 ab "default cases"
grep -E "dense|skip" "$OUT/ab.log" | head -40
step "gpu tests (patched): dense, tile by tile, bit identity; d = 64 and 128"
BLASST_TEST_HEAD_DIMS=64,128 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile skip_kernel_that_skips_nothing > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/gpu-tests.log" | tee -a "$LOG"
