#!/usr/bin/env bash
# Run 344 (prepared in session 75, for the next session that gets a machine), in two calls:
# `run344.sh 1`, then `run344.sh 2` on the same warm machine; carry target/device (build 0d6b389).
# On an H200 (none has run today's kernels; the last H200 tables are run 283's, session 54):
#   1: the bf16 tables, predicted within 0.05 of run 329's H100 ratios (nothing skipped
#      0.96-1.05x, ~50 % 1.14-1.26x, ~70 % 1.31-1.45x), dense 3-8 % below run 329's 456-643
#      TFLOP/s at the H200's power cap, decode 0.98-1.02x SDPA;
#   2: memcheck over all 16 GPU tests, predicted 16 passed, 0 errors (run 331's result, H100).
# On any other card, the steps of scripts/device-check.sh that have not run on 0d6b389 (all three
# of part 1 last passed in run 297, session 57):
#   1: the tile-by-tile test at d = 128 with the warps decode kernel's producer delayed 20 us, the
#      d = 128 prefill tests with BLASST_PREFILL_PV_OVERLAP=0, the d = 128 decode tests with
#      BLASST_DECODE_WARPS=0 (~200 s in run 297);
#   2: memcheck over gpu_threads and gpu_contexts' no-current-context test, and over the
#      tile-by-tile test with one KV split per unit (BLASST_DECODE_UNITS=1; run 241).
# Predicted: everything passes, 0 memcheck errors (no host or kernel change touches these paths
# since they last passed).
set -uo pipefail
source bench/runs/common.sh
part=${1:-1}
run_start
if gpu_is H200; then
  h200_part "$part" run344
elif [ "$part" = 1 ]; then
  GPU_TESTS_LOG=gpu-tests-delayed.log GPU_TESTS_TIMEOUT=150 BLASST_TEST_HEAD_DIMS=128 \
    BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000 \
    gpu_tests_named "warps producer delayed 20 us, d = 128" skip_decisions_match_the_cpu_tile_by_tile
  GPU_TESTS_LOG=gpu-tests-no-overlap.log GPU_TESTS_TIMEOUT=200 BLASST_TEST_HEAD_DIMS=128 BLASST_PREFILL_PV_OVERLAP=0 \
    gpu_tests_named "BLASST_PREFILL_PV_OVERLAP=0, d = 128" dense_matches skip_decisions_match_the_cpu skip_kernel_that_skips_nothing
  GPU_TESTS_LOG=gpu-tests-no-warps.log GPU_TESTS_TIMEOUT=200 BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS=0 \
    gpu_tests_named "BLASST_DECODE_WARPS=0, d = 128" dense_matches skip_decisions_match_the_cpu_tile
  pack_out run344-follow-ups
else
  memcheck_binary gpu_threads 250 target/device/gpu_threads --test-threads=1
  memcheck_binary "gpu_contexts, no current context" 100 target/device/gpu_contexts --test-threads=1 a_thread_without_a_current_context
  BLASST_DECODE_UNITS=1 memcheck_binary "tile by tile, BLASST_DECODE_UNITS=1" 200 target/device/gpu_tests --test-threads=1 \
    skip_decisions_match_the_cpu_tile
  pack_out run344-memcheck
fi
