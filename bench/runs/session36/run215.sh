#!/usr/bin/env bash
# Run 215 (session 36): the tree of run 214 (0303e23's kernels): compute-sanitizer memcheck over
# the d = 256 GPU tests (contiguous and paged prefill with the split barriers; padded 160: the
# boxes past the head dim not copied), then bench/head_dim_256.py at d = 256 and 160 (prefill
# and decode against PyTorch SDPA; run 179 measured d = 256 prefill dense 406-504 TFLOP/s,
# 0.56-0.78x SDPA). Prediction: memcheck 0 errors; prefill dense 520-650 TFLOP/s, 0.8-1.0x SDPA.
source bench/runs/common.sh
step "precompile (160, 256)"
timeout 100 target/device/blasst precompile --head-dims 160,256 > "$OUT/precompile.log" 2>&1
echo "precompile exit $?" | tee -a "$LOG"
step "head_dim_256 (d = 256, prefill)"
timeout 100 python3 bench/head_dim_256.py target/device/libblasst.so > "$OUT/d256.log" 2>&1
echo "head_dim_256 exit $?" | tee -a "$OUT/d256.log" "$LOG"
step "head_dim_256 --d 160"
timeout 80 python3 bench/head_dim_256.py target/device/libblasst.so --d 160 > "$OUT/d160.log" 2>&1
echo "head_dim_256 --d 160 exit $?" | tee -a "$OUT/d160.log" "$LOG"
export BLASST_TEST_HEAD_DIMS=256 BLASST_TEST_PADDED_HEAD_DIMS=160
step "memcheck (d = 256, padded 160)"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
  dense_matches padded_head_dims skip_decisions_match_the_cpu_tile_by_tile paged_prefill_without > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"
grep -aE "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
