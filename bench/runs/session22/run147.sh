#!/usr/bin/env bash
# Run 147 (prepared in session 22, which had no GPU lent; for the next session's first call).
# Session 22 changed the host side only: the CPU backend computes row tiles in groups (results
# bit-identical; the GPU tests compare against it, so they should finish sooner), CUDA launches
# make no string unless they fail, and the NVRTC target string is made once per device. None of
# it has run on a GPU. New GPU test: output_may_overwrite_the_queries (o = q in place; the
# header and README promise it, from the kernels' structure). This call: the device check without the portable kernels' tests (their
# kernels did not change), then memcheck with driver API errors reported over all GPU tests (to
# drop `--report-api-errors no` from device-check.sh if it stays at 0 errors), then the host time
# per call of the shipped session-20 library (target/device-head, if carried) and this tree.
# Build first: scripts/build-device.sh; carry target/device (and target/device-head).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
SKIP_MMA_TESTS=1 BENCH_TIMEOUT=300 bash scripts/device-check.sh
{
  echo "===== memcheck over all GPU tests, API errors reported ($(date +%T))"
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
    | grep -E "ERROR SUMMARY|test result|Program hit"
  echo "memcheck (API errors reported) exit ${PIPESTATUS[0]}"
  echo "===== host time per call ($(date +%T))"
  libs=(target/device/libblasst.so)
  [ -f target/device-head/libblasst.so ] && libs=(target/device-head/libblasst.so "${libs[@]}")
  timeout 120 python3 bench/micro/host_overhead.py "${libs[@]}"
  echo "host_overhead exit $?"
} >> "$OUT/run.log" 2>&1
grep -E "^===|exit|ERROR SUMMARY" "$OUT/run.log" | tail -30
