#!/usr/bin/env bash
# Run 270 (session 52), either card: what no run has done since session 51's merge
# (kernels/merge.cu, splits shared out among a CTA's warps) and warps-kernel plan landed:
# 1. the GPU tests emulating GPUs with less shared memory, portable kernels (an A100's 164 KB per
#    SM at head dims 64/128/256, padded 40/96/160; 100 KB at 64/128, padded 40/96): their plans
#    merge splits with the new merge kernel (~130 s and ~80 s on the H200, runs 199-200);
# 2. memcheck over every GPU test at head dims 64 and 256 (run 264 covered 128), as time allows.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
precompile
emulated_both
left=$((590 - SECONDS))
if [ "$left" -gt 60 ]; then
  BLASST_TEST_HEAD_DIMS=64,256 BLASST_TEST_PADDED_HEAD_DIMS=40,160 MEMCHECK_TIMEOUT=$left memcheck
else
  echo "memcheck left out ($SECONDS s)" | tee -a "$LOG"
fi
