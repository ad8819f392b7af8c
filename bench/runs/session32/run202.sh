#!/usr/bin/env bash
# Run 202 (session 32): head dims below a kernel's (40, 96, 160 on the d = 64, 128, 256 kernels,
# columns past the head dim zero-filled: new in session 32). Their kernels precompiled
# (`blasst precompile --head-dims`); the padded-head-dim GPU test (dense vs float64 and the CPU in
# every main layout, gaps between heads neither read nor written, Skip-Softmax tile by tile) and
# merge_states with the Hopper kernels and with the portable ones; the 100 KB emulation with
# 40 and 96; timings at d = 96 (bench/head_dim_256.py --d 96: blasst dense/skip, PyTorch SDPA);
# the other GPU tests (their kernels' SASS is unchanged); memcheck over the padded test.
source bench/runs/common.sh
precompile
step "precompile padded head dims"
timeout 90 target/device/blasst precompile --head-dims 40,96,160 > "$OUT/precompile-padded.log" 2>&1
echo "precompile padded exit $?" | tee -a "$LOG"
tail -1 "$OUT/precompile-padded.log" | tee -a "$LOG"
step "padded gpu tests (default kernels)"
timeout 120 target/device/gpu_tests --test-threads=1 --nocapture padded merge_states > "$OUT/gpu-tests-padded.log" 2>&1
echo "padded gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-padded.log" | head -5 | tee -a "$LOG"
step "padded gpu tests (portable kernels)"
BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 120 target/device/gpu_tests --test-threads=1 --nocapture padded merge_states > "$OUT/gpu-tests-padded-mma.log" 2>&1
echo "padded gpu tests (mma) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-padded-mma.log" | head -5 | tee -a "$LOG"
step "padded gpu tests emulating 100 KB"
BLASST_SMEM_PER_SM=102400 BLASST_TEST_HEAD_DIMS=64,128 BLASST_TEST_PADDED_HEAD_DIMS=40,96 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
  timeout 100 target/device/gpu_tests --test-threads=1 padded > "$OUT/gpu-tests-padded-100kb.log" 2>&1
echo "padded gpu tests (100 KB) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-padded-100kb.log" | head -5 | tee -a "$LOG"
step "timings at d = 96"
PYTHONUNBUFFERED=1 timeout 100 python3 bench/head_dim_256.py target/device/libblasst.so --d 96 > "$OUT/d96.log" 2>&1
echo "d96 exit $?" | tee -a "$LOG"
step "gpu tests (all others)"
timeout 170 target/device/gpu_tests --test-threads=1 --skip padded --skip merge_states > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
memcheck padded
step done
