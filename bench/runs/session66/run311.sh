#!/usr/bin/env bash
# Run 311 (session 66): the tree with the split K/V barriers as the default d = 128 prefill
# kernels over pages under 64 keys (run 310: faster than the kernels without the overlap there,
# and the same kernels as run 310's switched ones, whose d = 128 prefill tests passed). What had
# not run on them: the sanitizers, the cp.async path (BLASST_PREFILL_TMA=0), the paged-prefill
# check against float32, and the whole GPU suite. Order: the sanitizers over the tile-by-tile test's
# small-page prefill cases (14: 16-key pages, causal; 15: 32-key pages) first, then the rest.
# Predicted: all pass, 0 errors and 0 hazards.
set -uo pipefail
source bench/runs/common.sh
run_start
export BLASST_TEST_HEAD_DIMS=128
for tool in racecheck synccheck memcheck; do
  step "$tool, tile-by-tile cases 14 and 15 (small-page prefill), d = 128"
  echo "===== $tool" >> "$OUT/sanitizers.log"
  BLASST_TEST_CASES=14,15 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 20 \
    target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/sanitizers.log" 2>&1
  echo "$tool exit $?" | tee -a "$LOG"
  grep -E "SUMMARY|test result" "$OUT/sanitizers.log" | tail -2 | tee -a "$LOG"
done
BLASST_PREFILL_TMA=0 GPU_TESTS_LOG=gpu-tests-no-tma.log GPU_TESTS_TIMEOUT=150 \
  gpu_tests_named "BLASST_PREFILL_TMA=0, d = 128" dense_matches skip_decisions_match_the_cpu_tile
unset BLASST_TEST_HEAD_DIMS
paged_check
GPU_TESTS_TIMEOUT=330 gpu_tests
pack_out logs
