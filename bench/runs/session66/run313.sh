#!/usr/bin/env bash
# (The switch it calls, BLASST_PREFILL_ALIGNED_RETIRE, was in the tree at d19b3f2-4c5af61 only: after run 313 mode 2 became the kernel and the switch went.)
# Run 313 (session 66): run 312's ALIGNED_RETIRE (one wait after the softmax branches) passed
# synccheck but cost Skip-Softmax 4-11 %. Mode 2 (`BLASST_PREFILL_ALIGNED_RETIRE=2`) waits once
# before the branches: no extra registers or moves, but the exponentials no longer overlap
# P V_{t-1}. Builds: target/device = the tree (default kernels as 1e52a13's), target/device-ar2 =
# a copy of its library called with the switch at 2. Predicted: synccheck 0 errors; tests pass;
# Skip-Softmax -6..-1 % with few skipped, -1..+4 % at 75 % skipped or more (session 56's overlap
# gain on the skip kernel, run 294: -2..+8 % up to ~70 %, -8..+1 % at 75-92 %).
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_PREFILL_ALIGNED_RETIRE=2 precompile target/device-ar2
export BLASST_TEST_HEAD_DIMS=128
step "synccheck, tile-by-tile cases 0-5, 14, 15 (prefill), d = 128, BLASST_PREFILL_ALIGNED_RETIRE=2"
BLASST_PREFILL_ALIGNED_RETIRE=2 BLASST_TEST_CASES=0,1,2,3,4,5,14,15 timeout 150 compute-sanitizer --tool synccheck \
  --error-exitcode 9 --print-limit 4 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
  > "$OUT/sanitizers.log" 2>&1
echo "synccheck (ALIGNED_RETIRE=2) exit $?" | tee -a "$LOG"
grep -E "SUMMARY|test result" "$OUT/sanitizers.log" | tail -2 | tee -a "$LOG"
BLASST_PREFILL_ALIGNED_RETIRE=2 GPU_TESTS_TIMEOUT=100 gpu_tests_named "ALIGNED_RETIRE=2, d = 128" \
  skip_decisions_match_the_cpu_tile_by_tile skip_kernel_that_skips_nothing
unset BLASST_TEST_HEAD_DIMS
AR=target/device-ar2/libblasst.so:BLASST_PREFILL_ALIGNED_RETIRE=2
AB_BUILDS="target/device/libblasst.so $AR" AB_TIMEOUT=70 ab "contiguous (tree, aligned retire 2)"
AB_BUILDS="target/device/libblasst.so $AR" AB_TIMEOUT=80 ab "16-key pages (tree, aligned retire 2)" --page=16
pack_out logs
