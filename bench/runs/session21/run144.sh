#!/usr/bin/env bash
# Run 144 (session 21): the final tree. The device check (GPU tests, gpu_threads, memcheck over
# all of both, demo, benchmark; the portable kernels' tests left out: their SASS and host path are
# the Hopper tests'), then memcheck with driver API errors reported over the host-pointer test
# (cuPointerGetAttributes answers host addresses without an error) and the host time per call of
# the shipped library of session 20 (device-head) and this tree (device).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
SKIP_MMA_TESTS=1 BENCH_TIMEOUT=300 bash scripts/device-check.sh
{
  echo "===== memcheck, API errors reported"
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 host_pointers
  echo "memcheck (API errors reported) exit $?"
  echo "===== host time per call"
  timeout 120 python3 bench/micro/host_overhead.py target/device-head/libblasst.so target/device/libblasst.so
  echo "host_overhead exit $?"
} >> "$OUT/run.log" 2>&1
grep -E "API errors reported|ERROR SUMMARY|host time" "$OUT/run.log" | tail -6
