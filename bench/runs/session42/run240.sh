#!/usr/bin/env bash
# Run 240 (session 42): device = the tree (1ab8b68: efb834e's one read_entry, not yet run on a
# GPU); device-lanes = the tree + lanes-long-splits.patch (block-table entries in lanes for
# 16- and 32-key pages with tiles of up to 8 rows when a split has 128 tiles or more).
# Prediction from run 239 (all in lanes): 16 x 32K +2-3 %, 64 x 8K +0-1 %, 1 x 128K (62 tiles per
# split, keeps reads at the copies) unchanged. Then all GPU tests under memcheck on the tree,
# and the paged decode tests under memcheck on the patched build.
source bench/runs/common.sh
LOG="$OUT/run240-steps.log"
precompile
precompile target/device-lanes
LAYOUT_TIMEOUT=90 paged_layout run240-one target/device/libblasst.so target/device-lanes/libblasst.so --pages 16,32
MEMCHECK_TIMEOUT=280 memcheck
step "memcheck, patched build (decode and skip tests)"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 target/device-lanes/gpu_tests --test-threads=1 dense_matches skip_decisions kv_shared more_sequences > "$OUT/memcheck-lanes.log" 2>&1
echo "memcheck (lanes) exit $?" | tee -a "$LOG"
grep -E "ERROR SUMMARY|test result|panicked" "$OUT/memcheck-lanes.log" | tail -5 | tee -a "$LOG"
step end
