#!/usr/bin/env bash
# Run 274 (session 53, either card): head dim 256 on GPUs of 100 KB of shared memory per SM,
# emulated (BLASST_SMEM_PER_SM=102400, portable kernels): the prefill kernel's compact layout at
# d = 256 (96 KB), which also runs decode-shaped calls there (no decode kernel fits: the plan is
# prefill). All GPU tests at head dims 64/128/256 and padded 40/96/160, then memcheck over the
# dense and tile-by-tile tests at d = 256 and at padded d = 160.
# Build first: bash scripts/build-device.sh (carry target/device).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
precompile
timeout 60 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
EMULATED_TIMEOUT=360 emulated_gpu_tests 102400 64,128,256 smem100k 40,96,160
left=$((590 - SECONDS))
if [ "$left" -ge 60 ]; then
  emulated_memcheck 102400 256 "$left"
else
  echo "memcheck at d = 256 left out ($SECONDS s)" | tee -a "$LOG"
fi
