#!/usr/bin/env bash
# Run 195 (session 30): EXPERIMENT, d = 128 paged prefill over pages under 64 keys: a whole warp
# issues a visit's boxes of K (the team's first warp) or V (its second): lane c reads chunk c's
# page, shuffles make each page warp-uniform, and one elected lane issues (the SASS loses the
# ELECT loop and its R2UR moves per box: two UTMALDG back to back per chunk). Against f1499e5
# (target/device-base: one thread per tensor, the pages read at once). The paged check, A/Bs at
# 16- and 64-key pages, the tile-by-tile and paged-prefill GPU tests.
source bench/runs/common.sh
precompile
paged_check || exit 1
AB_TIMEOUT=50 ab "d128 page 16" --page=16
AB_TIMEOUT=45 ab "d128 page 64" --paged
step "gpu tests: tile by tile, paged prefill without num_pages"
timeout 90 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile paged_prefill_without > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step done
