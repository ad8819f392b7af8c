#!/usr/bin/env bash
# Run 151 (session 22): memcheck over gpu_threads with driver API errors reported (run 148 did
# gpu_tests that way: 0 errors). If 0 here too, device-check.sh can drop --report-api-errors no.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_threads --test-threads=1 > "$OUT/memcheck_threads_api.log" 2>&1
echo "memcheck gpu_threads (API errors reported) exit $?" | tee "$OUT/run.log"
grep -E "ERROR SUMMARY|test result|Program hit|API" "$OUT/memcheck_threads_api.log" | head -20 | tee -a "$OUT/run.log"
