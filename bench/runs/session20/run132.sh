#!/usr/bin/env bash
# Run 132: the prefill epilogue staged through shared memory (16-byte coalesced O stores) against
# the shipped kernels (device-head): check_prefill, the GPU tests with the default kernels, memcheck
# over the prefill tests, interleaved A/Bs (default cases and --noncausal).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$L" 2>&1
echo "check_prefill exit $?" >> "$L"
grep -E "^BAD|mismatches|exit" "$L" | tail -4
timeout 200 target/device/gpu_tests --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
grep -E "test result|exit|panicked" "$OUT/gpu_tests.log" | tail -4
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device-new/libblasst.so > "$OUT/ab.log" 2>&1
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device-new/libblasst.so --noncausal >> "$OUT/ab.log" 2>&1
cat "$OUT/ab.log" | cut -c1-200
timeout 150 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
  dense_matches skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" >> "$OUT/memcheck.log"
grep -E "ERROR SUMMARY|test result|exit" "$OUT/memcheck.log" | tail -3
