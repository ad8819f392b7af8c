#!/usr/bin/env bash
# Run 252 (session 45): the row-tile warps decode kernel with its paged copies' block-table
# entries read a tile ahead, and each page's rows copied as contiguous ones (run 251: paged calls
# 0.40-0.49x of contiguous). The GPU tests at d = 128 that run paged decode, memcheck over the
# dense and tile-by-tile tests at d = 128, then the A/B of run 251 (spec_ab).
# NOT RUN: the device machine stopped answering during the call and no other was lent in
# session 45; the kernel it would have run is run252-decode-warps-paged-unmeasured.patch (the tree
# keeps the warps kernel for contiguous caches only).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "gpu tests at d = 128: dense, tile by tile, sweep"
BLASST_TEST_HEAD_DIMS=128 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile calibration_sweep > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked" "$OUT/gpu-tests.log" | head -8 | tee -a "$LOG"
spec_ab warps BLASST_DECODE_WARPS
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=150 memcheck dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile
