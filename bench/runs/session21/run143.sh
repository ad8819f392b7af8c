#!/usr/bin/env bash
# Run 143 (session 21): the Hopper prefill with S_t and P V_{t-1} in separate commit groups
# (wgmma wait 1 before the row maxima, wait 0 before the softmax), against the shipped kernels
# (target/device-head); check_prefill (d 64 and 128) first for the register-operand hazard.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
{
  timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so
  echo "check_prefill exit $?"
  timeout 150 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile skip_kernel_that_skips_nothing
  echo "gpu tests exit $?"
} > "$OUT/check.log" 2>&1
grep -E "mismatches|exit|test result" "$OUT/check.log"
timeout 150 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device/libblasst.so > "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
timeout 150 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device/libblasst.so --noncausal >> "$OUT/ab.log" 2>&1
echo "ab noncausal exit $?" >> "$OUT/ab.log"
cat "$OUT/ab.log"
