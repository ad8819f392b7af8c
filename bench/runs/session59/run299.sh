#!/usr/bin/env bash
# Ran in session 59 (logs in run299-logs/, bench/RESULTS.md "Session 59"); the switch, the
# profile patch and profile_visits.py --s-ahead it names are gone from the tree since (see 2a7ae8f).
# Run 299 (prepared in session 58, not run: no machine came after run 298): the d = 128 skip and dense
# kernels with a second score buffer (S_AHEAD, BLASST_PREFILL_S_AHEAD=1; kernels/prefill_sm90.cu):
# S_{t+1} issued in visit t's turn, before S_t's row maxima, P packed into S_t's registers
# (compiles with no spills, no C75xx; the paged kernels spill 4 bytes).
# Why (run 298): a skipped visit is its warpgroup's chain, S's ~600 cycles then ~900 of waits,
# maxima, votes and bookkeeping; the other warpgroup's S (512) hides in those 900 and the tensor
# cores idle ~440 cycles a visit. With S_{t+1} in flight during them the chain is the ~900 alone.
# Prediction: skipped visits ~1500 -> ~1000-1100 cycles (tensor-bound at 1024): at 87-92 %
# skipped +20-30 %, at ~70 % +10-15 %, at ~50 % +5-10 %; nothing skipped: kept visits now wait
# for their P V right after issuing it (-5..+5 %). Outputs and decisions the tree's bit for bit.
# Build: scripts/build-device.sh (the tree, the switch off by default); carry target/device.
# For step 4 also: git apply bench/micro/visit_profile_s_ahead.patch, cargo build --release,
# mkdir -p target/device-prof-sa, cp target/release/libblasst.so target/device-prof-sa/,
# git checkout kernels/prefill_sm90.cu; carry target/device-prof-sa too.
# ~7 minutes on a fresh machine; AB_ONLY=1: the A/B alone, ~3 minutes (no precompile or checks).
# 1. check_prefill.py and check_paged_prefill.py with the switch;
# 2. (before the GPU tests, in case the call is cut short) the interleaved A/B tree | S_AHEAD
#    (separate library copies: one process keeps the first kernel per variant);
# 3. with the switch at d = 128: the tile-by-tile decisions and outputs against the CPU (both
#    lambda tests), the nothing-skipped bit-identity with dense, the calibration sweep (its
#    kernel is not S_AHEAD's: unchanged), paged prefill; then memcheck and racecheck over the
#    tile-by-tile test's prefill case;
# 4. if target/device-prof-sa is there, the cycles per visit phase of the S_AHEAD loop
#    (bench/micro/profile_visits.py --s-ahead), to set beside run 298's.
set -uo pipefail
source bench/runs/common.sh
if [ "${AB_ONLY:-0}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
else
run_start
BLASST_PREFILL_S_AHEAD=1 timeout 120 target/device/blasst precompile > /dev/null 2>&1
echo "precompile (S_AHEAD) exit $?" | tee -a "$LOG"
step "check_prefill and check_paged_prefill, S_AHEAD"
BLASST_PREFILL_S_AHEAD=1 timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check-sahead.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
BLASST_PREFILL_S_AHEAD=1 timeout 120 python3 bench/check_paged_prefill.py target/device/libblasst.so >> "$OUT/check-sahead.log" 2>&1
echo "check_paged_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches|bad cases" "$OUT/check-sahead.log" | head -6 | tee -a "$LOG"
fi
step "A/B: tree | S_AHEAD"
mkdir -p target/device-sa && cp target/device/libblasst.so target/device-sa/
timeout 200 python3 bench/ab_prefill.py target/device/libblasst.so \
  target/device-sa/libblasst.so:BLASST_PREFILL_S_AHEAD=1 > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
tail -40 "$OUT/ab.log"
[ "${AB_ONLY:-0}" = 1 ] && exit 0
step "gpu tests, S_AHEAD, d = 128"
BLASST_PREFILL_S_AHEAD=1 BLASST_TEST_HEAD_DIMS=128 timeout 240 target/device/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu skip_kernel_that_skips_nothing calibration_sweep paged_prefill > "$OUT/gpu-tests-sahead.log" 2>&1
echo "gpu tests (S_AHEAD) exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked|FAILED" "$OUT/gpu-tests-sahead.log" | head -8 | tee -a "$LOG"
BLASST_PREFILL_S_AHEAD=1 BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=150 memcheck skip_decisions_match_the_cpu_tile_by_tile
step "racecheck, S_AHEAD, tile-by-tile case 0 (prefill)"
BLASST_PREFILL_S_AHEAD=1 BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=0 timeout 150 compute-sanitizer --tool racecheck \
  --error-exitcode 9 --print-limit 20 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
  > "$OUT/racecheck.log" 2>&1
echo "racecheck exit $?" | tee -a "$LOG"
grep -E "SUMMARY|test result" "$OUT/racecheck.log" | tail -2 | tee -a "$LOG"
if [ -f target/device-prof-sa/libblasst.so ]; then
  step "visit profile, S_AHEAD"
  BLASST_PREFILL_S_AHEAD=1 timeout 120 python3 bench/micro/profile_visits.py --s-ahead target/device-prof-sa/libblasst.so > "$OUT/visits-sahead.log" 2>&1
  echo "profile exit $?" | tee -a "$LOG"
fi
