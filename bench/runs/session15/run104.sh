#!/usr/bin/env bash
# Run 104: v3, the quad's three other partial maxima gathered in one round of shuffles issued ahead of the votes and combined only on the paths that read them (target/device), against session 14's build and run 103's v2.
# v4 (target/device-v4): v3 with the two votes of a 128-key visit side by side.
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
timeout 260 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-v2/libblasst.so target/device/libblasst.so target/device-v4/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"; cat "$OUT/ab.log"
