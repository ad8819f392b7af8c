#!/usr/bin/env bash
# Run 310 (session 65): run 309's question (32-key pages: the `_paged_small` kernels without the
# P V overlap, 49261af, never timed), and the split K/V barriers for the overlapped d = 128
# kernel (OVERLAP_SPLIT, `BLASST_PREFILL_OVERLAP_SPLIT=1`, f14b46e: K of visit t released once
# S_t is done, V of visit t - 1 in retire_pv; with it, small pages take the overlapped kernel).
# Builds: target/device-base = 90e1648 (the overlap at every page size), target/device = the tree
# (small pages without it), target/device-split = a copy of the tree's library called with the
# switch on (one process keeps the first kernel it builds per variant, so a copy of its own).
# Order: the split kernels' correctness first (d = 128, their tile-by-tile decisions against the
# CPU, and skip-nothing against dense bit for bit); the A/Bs take the split build only if those pass.
# Predicted: 32-key pages, the tree over 90e1648, dense +1..+4 %, Skip-Softmax +1..+5 %; the split
# over the tree: over 16- and 32-key pages dense +2..+6 % (the overlap back without the late
# release), Skip-Softmax -2..+3 %; contiguous and 64-key pages within +-2 % (their copies are
# few and early enough already).
set -uo pipefail
source bench/runs/common.sh
run_start
precompile target/device-base
BLASST_PREFILL_OVERLAP_SPLIT=1 precompile target/device-split
export BLASST_TEST_HEAD_DIMS=128
BLASST_PREFILL_OVERLAP_SPLIT=1 GPU_TESTS_LOG=gpu-tests-split.log GPU_TESTS_TIMEOUT=90 \
  gpu_tests_named "split, d = 128: decisions, skip nothing" \
  skip_decisions_match_the_cpu_tile_by_tile skip_kernel_that_skips_nothing
split_ok=0
grep -q "test result: ok. 2 passed" "$OUT/gpu-tests-split.log" && split_ok=1
echo "split kernels pass: $split_ok" | tee -a "$LOG"
SPLIT=target/device-split/libblasst.so:BLASST_PREFILL_OVERLAP_SPLIT=1
with_split() { [ "$split_ok" = 1 ] && echo "$SPLIT"; }
AB_TIMEOUT=80 ab "16-key pages (base, tree, split)" --page=16 $(with_split)
AB_TIMEOUT=80 ab "32-key pages (base, tree, split)" --page=32 $(with_split)
# SHORT=1 (for a lease with little device time left) stops here.
[ "${SHORT:-0}" = 1 ] && { pack_out logs; exit 0; }
if [ "$split_ok" = 1 ]; then
  AB_BUILDS="target/device/libblasst.so $SPLIT" AB_TIMEOUT=60 ab "tree, split contiguous"
  AB_BUILDS="target/device/libblasst.so $SPLIT" AB_TIMEOUT=60 ab "tree, split --page=64" --page=64
  BLASST_PREFILL_OVERLAP_SPLIT=1 GPU_TESTS_LOG=gpu-tests-split-dense.log GPU_TESTS_TIMEOUT=150 \
    gpu_tests_named "split, d = 128: dense, paged, lambda" \
    dense_matches_cpu_and_float64 paged_prefill_without_num_pages skip_decisions_match_the_cpu_with_lambda output_may_overwrite
fi
pack_out logs
