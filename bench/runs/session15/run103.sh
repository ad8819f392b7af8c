#!/usr/bin/env bash
# Run 103: the prefill skip kernel's votes read the threads' partial row maxima (no quad
# shuffles on a skipped visit's path): v2 (the shuffles only on the paths that read them, the
# tree's kernel: target/device) and v1 (the shuffles left where ptxas put them, ahead of the
# votes). The skip GPU tests with v2, then an interleaved A/B of session 14's build, v1 and v2.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
echo "=== gpu tests (skip decisions, bit-identity, calibration)" | tee -a "$L"
timeout 200 target/device/gpu_tests --test-threads=1 skip_ calibration > "$OUT/gpu_tests.log" 2>&1; rc=$?; echo "gpu tests exit $rc" | tee -a "$L"
grep -E "^test |test result|panicked" "$OUT/gpu_tests.log" | tail -6
[ "$rc" = 0 ] || exit 1
echo "=== A/B" | tee -a "$L"
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-v1/libblasst.so target/device/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"; cat "$OUT/ab.log"
