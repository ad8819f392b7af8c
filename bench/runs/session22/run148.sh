#!/usr/bin/env bash
# Run 148 (session 22): what did not fit in run 147's 600 s. The GPU tests with the portable
# kernels (BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma: the new in-place test and the
# faster CPU reference on their path too); memcheck over all GPU tests with driver API errors
# reported (to drop `--report-api-errors no` from device-check.sh if it finds none); the host
# time per call of session 21's library (target/device-s21, the tree of 1287de4) and this one.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
{
  echo "===== gpu tests, mma kernels ($(date +%T))"
  BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 240 target/device/gpu_tests --test-threads=1 > "$OUT/gpu_tests_mma.log" 2>&1
  echo "gpu tests (mma) exit $?"
  grep -E "^test |test result" "$OUT/gpu_tests_mma.log" | tail -14
  echo "===== memcheck over all GPU tests, API errors reported ($(date +%T))"
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 > "$OUT/memcheck_api.log" 2>&1
  echo "memcheck (API errors reported) exit $?"
  grep -E "ERROR SUMMARY|test result|Program hit" "$OUT/memcheck_api.log" | sort | uniq -c | head -20
  echo "===== host time per call ($(date +%T))"
  timeout 100 python3 bench/micro/host_overhead.py target/device-s21/libblasst.so target/device/libblasst.so
  echo "host_overhead exit $?"
  echo "===== end ($(date +%T))"
} > "$LOG" 2>&1
cat "$LOG" | tail -40
