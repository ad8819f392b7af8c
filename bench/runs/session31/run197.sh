#!/usr/bin/env bash
# Run 197 (session 31): the portable decode kernel's pipeline depth and launch bounds now follow
# the GPU's shared memory (nvrtc::decode_stages, decode_ctas_bound), so that decode runs on GPUs
# of 100 KB per SM (sm_86, sm_89, sm_120: 3 stages at d = 64, 2 at d = 128, one CTA per SM).
# On the H200 the kernels built are 44ec4c1's (same depths and bounds, same source). Here: the
# GPU tests with the portable decode kernel at 2 stages (BLASST_DECODE_KERNEL=mma
# BLASST_DECODE_STAGES=2: the d = 128 pipeline of the 100 KB GPUs, d = 64 one shallower than
# theirs), the GPU tests with the default kernels (the variants now carry depth and bounds), and
# memcheck over the lambda > 1 tile-by-tile test at 2 stages.
source bench/runs/common.sh
precompile
step "gpu tests, BLASST_DECODE_KERNEL=mma BLASST_DECODE_STAGES=2"
BLASST_DECODE_KERNEL=mma BLASST_DECODE_STAGES=2 timeout 200 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests-mma-2stages.log" 2>&1
echo "gpu tests (mma, 2 stages) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-mma-2stages.log" | head -5 | tee -a "$LOG"
gpu_tests
BLASST_DECODE_KERNEL=mma BLASST_DECODE_STAGES=2 memcheck lambda_above_one
step done
