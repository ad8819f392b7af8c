#!/usr/bin/env bash
# Run 253 (session 46): the row-tile warps decode kernel over paged caches too (its copies read
# each tile's block-table entries a tile ahead; the run 252 rewrite, never run in session 45),
# and the review of session 45 (sweep votes through warp_sweep_mask, rows through kv_offset),
# never re-run. All GPU tests at d = 128 (its paged cases now on the warps kernel), the A/B of
# run 251 (BLASST_DECODE_WARPS=0: 16-row tiles, contiguous and paged), then memcheck over the
# dense and tile-by-tile tests at d = 128.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "gpu tests at d = 128"
BLASST_TEST_HEAD_DIMS=128 timeout 260 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked" "$OUT/gpu-tests.log" | head -24 | tee -a "$LOG"
spec_ab warps BLASST_DECODE_WARPS
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=170 memcheck dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile
