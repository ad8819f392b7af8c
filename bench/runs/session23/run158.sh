#!/usr/bin/env bash
# Run 158 (session 23): memcheck over the final tree (run 157's build): the 12 GPU tests, the
# gpu_threads tests and the first context test, driver API errors reported (device-check.sh
# without its test and benchmark steps: precompile, check_prefill, memcheck, demo).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
SKIP_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh > /dev/null 2>&1
grep -E "exit|===" "$OUT/run.log" > "$OUT/run158.log"
grep -E "ERROR SUMMARY|test result|=====" "$OUT/memcheck.log" >> "$OUT/run158.log"
cat "$OUT/run158.log"
