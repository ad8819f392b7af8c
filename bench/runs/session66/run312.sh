#!/usr/bin/env bash
# (The switch it calls, BLASST_PREFILL_ALIGNED_RETIRE, was in the tree at d19b3f2-4c5af61 only: after run 313 mode 2 became the kernel and the switch went.)
# Run 312 (session 66): run 311's synccheck found the overlapped d = 128 Skip-Softmax kernel
# waiting for P V_{t-1} (wgmma.wait_group, an .aligned instruction) at different instructions in
# the warps of one warpgroup: each branch of the softmax had its own wait. ALIGNED_RETIRE
# (`BLASST_PREFILL_ALIGNED_RETIRE=1`, off by default) waits once after the branches (each branch
# packs its P into Pn; Pc takes it after the wait). Builds: target/device = the tree (default
# kernels = 1e52a13's, cubin for cubin), target/device-ar = a copy of its library called with the
# switch on. Order: synccheck over the tile-by-tile prefill cases (0-5: contiguous and 64-key
# pages, 14-15: 16- and 32-key pages) at d = 128, without and with the switch; then the switched
# kernels' prefill tests; then interleaved A/Bs, contiguous, 16- and 64-key pages. Predicted:
# default kernels synccheck errors (cases 14-15 at least), switched 0; tests pass; speed of the
# switched skip kernels: contiguous -2..+2 % (32 moves per kept visit, the pack now under the
# overlap), paged -3..+1 % (36 bytes of spills in the producer).
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_PREFILL_ALIGNED_RETIRE=1 precompile target/device-ar
export BLASST_TEST_HEAD_DIMS=128
for ar in 0 1; do
  step "synccheck, tile-by-tile cases 0-5, 14, 15 (prefill), d = 128, BLASST_PREFILL_ALIGNED_RETIRE=$ar"
  echo "===== synccheck ALIGNED_RETIRE=$ar" >> "$OUT/sanitizers.log"
  BLASST_PREFILL_ALIGNED_RETIRE=$ar BLASST_TEST_CASES=0,1,2,3,4,5,14,15 timeout 150 compute-sanitizer --tool synccheck \
    --error-exitcode 9 --print-limit 4 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
    >> "$OUT/sanitizers.log" 2>&1
  echo "synccheck (ALIGNED_RETIRE=$ar) exit $?" | tee -a "$LOG"
  grep -E "SUMMARY|test result" "$OUT/sanitizers.log" | tail -2 | tee -a "$LOG"
done
step "racecheck, the same cases, BLASST_PREFILL_ALIGNED_RETIRE=1"
echo "===== racecheck ALIGNED_RETIRE=1" >> "$OUT/sanitizers.log"
BLASST_PREFILL_ALIGNED_RETIRE=1 BLASST_TEST_CASES=0,1,2,3,4,5,14,15 timeout 150 compute-sanitizer --tool racecheck \
  --error-exitcode 9 --print-limit 4 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
  >> "$OUT/sanitizers.log" 2>&1
echo "racecheck (ALIGNED_RETIRE=1) exit $?" | tee -a "$LOG"
grep -E "SUMMARY|test result" "$OUT/sanitizers.log" | tail -2 | tee -a "$LOG"
BLASST_PREFILL_ALIGNED_RETIRE=1 GPU_TESTS_TIMEOUT=150 gpu_tests_named "ALIGNED_RETIRE=1, d = 128" \
  skip_decisions_match_the_cpu_tile_by_tile skip_kernel_that_skips_nothing skip_decisions_match_the_cpu_with_lambda
unset BLASST_TEST_HEAD_DIMS
AR=target/device-ar/libblasst.so:BLASST_PREFILL_ALIGNED_RETIRE=1
AB_BUILDS="target/device/libblasst.so $AR" AB_TIMEOUT=70 ab "contiguous (tree, aligned retire)"
AB_BUILDS="target/device/libblasst.so $AR" AB_TIMEOUT=80 ab "16-key pages (tree, aligned retire)" --page=16
AB_BUILDS="target/device/libblasst.so $AR" AB_TIMEOUT=70 ab "64-key pages (tree, aligned retire)" --page=64
pack_out logs
