#!/usr/bin/env bash
# Run 275 (session 53, either card): the dense GPU test after its phase check (run 274 found its
# decode split-coverage check failing where no call takes the decode plan: d = 256 alone under
# the 100 KB emulation): under that emulation at d = 256, then on the GPU itself at 64/128/256
# with the Hopper kernels, then with the portable ones.
# Build first: bash scripts/build-device.sh (carry target/device).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
precompile
dense() {
  step "dense test: $1"
  echo "===== $1" >> "$OUT/dense.log"
  env $1 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches >> "$OUT/dense.log" 2>&1
  echo "dense ($1) exit $?" | tee -a "$LOG"
  grep -E "test result|panicked" "$OUT/dense.log" | tail -2 | tee -a "$LOG"
}
dense "BLASST_SMEM_PER_SM=102400 BLASST_TEST_HEAD_DIMS=256 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"
dense "BLASST_TEST_HEAD_DIMS=64,128,256"
dense "BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"
