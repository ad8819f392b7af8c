#!/usr/bin/env bash
# Run 137: the skip kernel does not re-zero P in a run of visits that skip both plan tiles (pc_zero),
# against the shipped kernels
# (device-head; prediction: Skip-Softmax +1-2 % at 70-92 % skipped, ~0.5 % at 50 %, dense SASS
# unchanged): check_prefill, the prefill GPU tests (tile-by-tile decisions, nothing-skipped bit
# identity), interleaved A/Bs (default cases and --noncausal), memcheck over the
# tile-by-tile test.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$L" 2>&1
echo "check_prefill exit $?" >> "$L"
grep -E "^BAD|mismatches|exit" "$L" | tail -4
timeout 200 target/device/gpu_tests --test-threads=1 skip_decisions skip_kernel_that > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
grep -E "^test |test result|exit|panicked" "$OUT/gpu_tests.log" | tail -8
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device-new/libblasst.so > "$OUT/ab.log" 2>&1
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device-new/libblasst.so --noncausal >> "$OUT/ab.log" 2>&1
cut -c1-200 "$OUT/ab.log"
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" >> "$OUT/memcheck.log"
grep -E "ERROR SUMMARY|test result|exit" "$OUT/memcheck.log" | tail -3
