#!/usr/bin/env bash
# Run 285 (session 55, either card): the GPU tests of the tree as it stands (6ed0307's kernels):
# the prefill checks against PyTorch, every test of tests/gpu.rs with the default kernels (~335 s
# on the H200 since session 44), gpu_threads and gpu_contexts, and the tile-by-tile test at
# d = 128 with the row-tile warps kernel's producer delayed 20 us. The whole suite last ran on an
# H200 in run 242 (session 43); sessions 44-54 ran it on H100s (run 278 the last).
set -uo pipefail
source bench/runs/common.sh
run_start
step "prefill check vs PyTorch"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check-prefill.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches" "$OUT/check-prefill.log" | tail -3 | tee -a "$LOG"
paged_check
GPU_TESTS_TIMEOUT=400 gpu_tests
gpu_threads_contexts
step "tile-by-tile at d = 128, warps producer delayed 20 us"
BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000 timeout 100 target/device/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu_tile_by_tile > "$OUT/delay.log" 2>&1
echo "delayed producer exit $?" | tee -a "$LOG"
grep -E "test result" "$OUT/delay.log" | tee -a "$LOG"
