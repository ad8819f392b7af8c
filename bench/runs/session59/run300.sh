#!/usr/bin/env bash
# Run 300 (session 59; ran, neutral, the code removed again: bench/RESULTS.md "Session 59"; the
# kernel change is in ad9cfec): EARLY_PROBE in the d = 128 Hopper prefill kernels (kernels/prefill_sm90.cu,
# the overlapped loop): visit t + 1's full barrier probed (mbarrier.test_wait, which never
# suspends) in visit t's turn, before the wait for S_t, and the wait at the head of visit t + 1
# skipped when the copies had landed. Why: run 298's visit profile puts 62-116 cycles of "full
# wait" at the head of every visit (~1500 skipped, ~2550 dense) while the copies are not the
# bound (run 296); the probe's latency passes under the S wait (165-340 cycles when skipping).
# Prediction: -50..-100 cycles a visit where the copies had landed: dense +1-3 %, ~70 % +2-4 %,
# 87-92 % +3-6 %; outputs and decisions the tree's bit for bit (the same arithmetic).
# Builds (the tree has the probe off, PREFILL90_EARLY_PROBE 0): target/device-base = the tree (its 36 sm_90a prefill
# cubins equal 1828996's: scripts/cubin-diff.py), target/device = scripts/build-device.sh with
# it 1; carry both.
# 1. check_prefill.py and check_paged_prefill.py with the probe;
# 2. the interleaved A/B base | probe (bench/ab_prefill.py);
# 3. at d = 128: the tile-by-tile decisions and outputs against the CPU (both lambda tests), the
#    nothing-skipped bit-identity with dense, paged prefill; racecheck over the tile-by-tile
#    prefill case.
set -uo pipefail
source bench/runs/common.sh
run_start
precompile target/device-base
step "check_prefill and check_paged_prefill, probe"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
timeout 120 python3 bench/check_paged_prefill.py target/device/libblasst.so >> "$OUT/check.log" 2>&1
echo "check_paged_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches|bad cases" "$OUT/check.log" | head -6 | tee -a "$LOG"
AB_TIMEOUT=200 ab "base | probe"
echo "ab exit $?" | tee -a "$LOG"
tail -48 "$OUT/ab.log"
step "gpu tests, probe, d = 128"
BLASST_TEST_HEAD_DIMS=128 timeout 200 target/device/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu skip_kernel_that_skips_nothing paged_prefill > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -8 | tee -a "$LOG"
step "racecheck, tile-by-tile case 0 (prefill)"
BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=0 timeout 150 compute-sanitizer --tool racecheck \
  --error-exitcode 9 --print-limit 20 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
  > "$OUT/racecheck.log" 2>&1
echo "racecheck exit $?" | tee -a "$LOG"
grep -E "SUMMARY|test result" "$OUT/racecheck.log" | tail -2 | tee -a "$LOG"
