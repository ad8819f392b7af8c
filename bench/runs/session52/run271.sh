#!/usr/bin/env bash
# Run 271 (session 52), either card: the portable decode kernel's row tiles (the plan cuts packed
# rows into the fewest equal tiles that fit the GPU's shared memory: src/cuda/mod.rs
# portable_decode_block_m). Run 270 found the 48- and 64-row speculative cases refused under the
# A100 (d = 256) and 100 KB (d = 128) emulations. Now:
# 1. the GPU tests under both emulations (portable kernels), as in run 270: all must pass, the
#    two cases now as two 32-row tiles;
# 2. memcheck over the dense and tile-by-tile tests under the 100 KB emulation at d = 128 (the
#    new row offsets), as time allows.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
precompile
emulated_both
left=$((590 - SECONDS))
if [ "$left" -gt 60 ]; then
  step "memcheck, 100 KB emulation, d = 128, dense and tile by tile"
  BLASST_SMEM_PER_SM=102400 BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_PADDED_HEAD_DIMS= BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
    timeout $left compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
    dense_matches skip_decisions_match_the_cpu_tile_by_tile > "$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?" | tee -a "$LOG"
  grep -E "ERROR SUMMARY|test result|panicked" "$OUT/memcheck.log" | tail -4 | tee -a "$LOG"
else
  echo "memcheck left out ($SECONDS s)" | tee -a "$LOG"
fi
