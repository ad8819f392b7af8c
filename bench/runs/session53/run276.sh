#!/usr/bin/env bash
# Run 276 (session 53, either card): bench/micro/smem100k_d256.py, d = 256 under the 100 KB
# emulation (compact prefill; decode-shaped calls on the prefill plan) and the usual portable
# layouts on the same GPU, two processes.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
for smem in 102400 ""; do
  step "d = 256, BLASST_SMEM_PER_SM=$smem"
  BLASST_SMEM_PER_SM=$smem BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
    timeout 100 python3 bench/micro/smem100k_d256.py target/device/libblasst.so 2>&1 | tee -a "$OUT/smem100k-d256.log"
done
