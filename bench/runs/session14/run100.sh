#!/usr/bin/env bash
# Run 100: the skip kernel with V copied only for kept halves (DEFER_V, non-paged, d <= 128):
# prefill check, the GPU tests (Hopper kernels), an interleaved A/B against the final build of
# run 98 (device-final), memcheck over the tile-by-tile test, the tests with BLASST_PREFILL_TMA=0.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
echo "=== check_prefill" | tee -a "$L"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$L" 2>&1; echo "check_prefill exit $?" | tee -a "$L"
grep -E "^BAD|mismatches" "$L" | head -5
echo "=== gpu tests" | tee -a "$L"
timeout 240 target/device/gpu_tests --test-threads=1 > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$L"
grep -E "^test |test result" "$OUT/gpu_tests.log" | tail -11
echo "=== A/B" | tee -a "$L"
timeout 150 python3 bench/ab_prefill.py target/device-final/libblasst.so target/device/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"; cat "$OUT/ab.log"
echo "=== memcheck (tile-by-tile test)" | tee -a "$L"
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$L"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -2
echo "=== gpu tests BLASST_PREFILL_TMA=0" | tee -a "$L"
BLASST_PREFILL_TMA=0 timeout 100 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu_tests_notma.log" 2>&1
echo "no-TMA exit $?" | tee -a "$L"; grep -E "test result" "$OUT/gpu_tests_notma.log"
