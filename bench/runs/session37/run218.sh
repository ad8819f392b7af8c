#!/usr/bin/env bash
# Run 218 (session 37): the rest of scripts/device-check.sh on c3dd425's build: the GPU tests
# with the portable kernels (and the kernel families that process loaded), then emulating an
# A100's (164 KB) and a 100 KB GPU's shared memory with the portable kernels.
set -o pipefail
source bench/runs/common.sh
precompile
timeout 90 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
step "portable kernels"
BLASST_LOG=debug BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 250 target/device/gpu_tests --test-threads=1 --nocapture > "$OUT/gpu-tests-mma.log" 2>&1
echo "mma exit $?" | tee -a "$LOG"
grep -E "test result" "$OUT/gpu-tests-mma.log" | tee -a "$LOG"
grep -oE "(loaded|compiled) blasst_[a-z0-9_]+" "$OUT/gpu-tests-mma.log" | sed -E 's/^[a-z]+ //; s/_(f16|bf16)_d[0-9]+.*//' | sort | uniq -c | tee -a "$LOG"
emulated_gpu_tests 167936 64,128,256 a100 40,96,160
emulated_gpu_tests 102400 64,128 smem100 40,96
step done
