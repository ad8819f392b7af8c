#!/usr/bin/env bash
# Run 314 (session 66): the tree (4baa2f8) with the overlapped Skip-Softmax kernel retiring
# P V_{t-1} before the softmax's branches (the kernels run 313 timed as mode 2, cubin for cubin):
# synccheck and racecheck over every tile-by-tile case at d = 128 (prefill and decode), then the
# prefill tests against the CPU at d = 128. Predicted: 0 errors, 0 hazards, all pass.
set -uo pipefail
source bench/runs/common.sh
run_start
export BLASST_TEST_HEAD_DIMS=128
for tool in synccheck racecheck; do
  step "$tool, every tile-by-tile case, d = 128"
  echo "===== $tool" >> "$OUT/sanitizers.log"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 4 \
    target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/sanitizers.log" 2>&1
  echo "$tool exit $?" | tee -a "$LOG"
  grep -E "SUMMARY|test result" "$OUT/sanitizers.log" | tail -2 | tee -a "$LOG"
done
GPU_TESTS_TIMEOUT=120 gpu_tests_named "d = 128 prefill" skip_kernel_that_skips_nothing dense_matches_cpu_and_float64
pack_out logs
