#!/usr/bin/env bash
# Run 303 (session 60): SKIP_EARLY in the Hopper prefill skip kernels (kernels/prefill_sm90.cu):
# a visit whose every plan tile the warp skips is decided by one warp vote on each lane's own
# row maxima, before the quad shuffles (the vote is monotone in the maximum, so the decisions are
# the full votes' bit for bit), and skips the shuffles' two rounds. Why: run 298's visit profile
# puts a skipped visit's time in its warpgroup's chain from S to the next issue (~1000 cycles:
# maxima 415, votes 139-158, rest ~130, waits), and P = 512 + that chain per visit; the two
# shuffle rounds and the chained per-row votes are ~100-150 cycles of it.
# Prediction: skipped visits ~1510 -> ~1380-1420 cycles: ~90 % skipped +5-8 %, ~70 % +3-5 %,
# ~50 % +1-3 %; nothing skipped -1..+1 % (the vote runs under the first shuffle round); dense
# kernels unchanged (their cubins are the tree's: scripts/cubin-diff.py, code sections equal).
# Builds: target/device-base = 6c4c9bd (the tree), target/device = scripts/build-device.sh with
# the change; target/device-x (its library only) with the change and the full votes of lambda <= 1
# as `&` of the rows' votes instead of `&&` (ptxas had predicated the second row's vote on the
# first: a chain of ~8 instructions, now two side by side; decisions the same), for kept
# visits; carry all three.
# 1. check_prefill.py and check_paged_prefill.py with the change;
# 2. the interleaved A/B base | early (bench/ab_prefill.py);
# 3. the GPU tests of Skip-Softmax prefill with the change (decisions tile by tile against the CPU,
#    lambda above one, nothing skipped bit-identical to dense; paged prefill; padded head dims),
#    at every head dim (the d = 64 and d = 256 skip kernels changed too); racecheck over the
#    tile-by-tile prefill case.
set -uo pipefail
source bench/runs/common.sh
run_start
precompile target/device-base
step "check_prefill and check_paged_prefill, early"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
timeout 120 python3 bench/check_paged_prefill.py target/device/libblasst.so >> "$OUT/check.log" 2>&1
echo "check_paged_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches|bad cases" "$OUT/check.log" | head -6 | tee -a "$LOG"
step "ab base | early | early + flat votes"
echo "===== base | early | early + flat votes" >> "$OUT/ab.log"
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so target/device-x/libblasst.so >> "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
grep "speedup over own" "$OUT/ab.log" | tee -a "$LOG"
step "gpu tests, early: skip, paged prefill, padded head dims (every head dim)"
timeout 300 target/device/gpu_tests --test-threads=1 skip_ paged_prefill padded_head_dims > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -12 | tee -a "$LOG"
step "racecheck, tile-by-tile case 0 (prefill)"
BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=0 timeout 60 compute-sanitizer --tool racecheck \
  --error-exitcode 9 --print-limit 20 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
  > "$OUT/racecheck.log" 2>&1
echo "racecheck exit $?" | tee -a "$LOG"
grep -E "SUMMARY|test result" "$OUT/racecheck.log" | tail -2 | tee -a "$LOG"
pack_out logs
