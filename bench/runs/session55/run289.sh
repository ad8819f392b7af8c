#!/usr/bin/env bash
# Run 289 (session 55, either card): the portable kernels of the tree as it stands (6ed0307), whose
# decode kernel took the tile length as a parameter in session 54 (8954e13: 32-key tiles on GPUs
# of 100 KB, run 277's emulation; 64-key tiles everywhere else, not run since): all GPU tests with
# BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma on the GPU's own shared memory, then under the
# A100 emulation (164 KB per SM) at head dims 64/128/256 and padded 40/96/160.
set -uo pipefail
source bench/runs/common.sh
run_start
timeout 60 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
step "gpu tests, portable kernels, the GPU's own shared memory"
BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 250 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests-mma.log" 2>&1
echo "gpu tests (mma) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-mma.log" | head -5 | tee -a "$LOG"
EMULATED_TIMEOUT=$((585 - SECONDS)) emulated_gpu_tests 167936 64,128,256 a100 40,96,160
