#!/usr/bin/env bash
# Run 184 (session 28): skip_stats flushed by one asynchronous bulk reduction per CTA
# (cp.reduce.async.bulk ... add.u64 from 16 staged shared bytes; the CTA waits only for the read)
# instead of two atomics whose completion the CTA waited for. target/device = the change,
# target/device-base = fd52ccf (run 181's build).
# Prediction: the skip kernel's CTA-to-CTA gap (1.22-1.25 us against dense's 0.67 us in run 115)
# shrinks when skip_stats is passed: bench.py's sparse rows (which pass it) +0.5-1.5 % at 4K-8K,
# less at 16K-32K; calls without skip_stats unchanged; ab_prefill.py's rows without stats (all
# earlier A/Bs) could not see it.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$L"; }
step precompile
timeout 120 target/device/blasst precompile > /dev/null 2>&1; echo "precompile exit $?" | tee -a "$L"
timeout 120 target/device-base/blasst precompile > /dev/null 2>&1; echo "precompile (base) exit $?" | tee -a "$L"
step "check_prefill"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$L" 2>&1; echo "check_prefill exit $?" | tee -a "$L"
grep -E "^BAD|mismatches" "$L" | tail -3
step "gpu tests"
timeout 200 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$L"
grep -E "test result|panicked" "$OUT/gpu-tests.log" | head -3 | tee -a "$L"
step "memcheck: tile by tile, lambda > 1, calibration sweep"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 skip_decisions calibration \
  > "$OUT/memcheck.log" 2>&1; echo "memcheck exit $?" | tee -a "$L"
grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -2 | tee -a "$L"
step "A/B, non-causal 4K-32K, with and without skip_stats"
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --noncausal --stats > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$L"
step "A/B, 8K/16K non-causal, 8K/32K causal"
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --stats >> "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$L"
grep -E "stats|dense \(hot|nothing" "$OUT/ab.log"
step done
