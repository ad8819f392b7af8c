#!/usr/bin/env bash
# Run 117: interleaved A/B of the tree before the persistent prefill (target/device-head,
# 2799c10), the persistent kernel with its tiles dealt round-robin (target/device, run 116's
# build) and dealt in a snake order (target/device-snake: odd rounds right to left, which
# balances causal tiles to within 3.1 % at every length).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/ab.log" 2>&1
timeout 280 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device/libblasst.so \
  target/device-snake/libblasst.so >> "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
cat "$OUT/ab.log"
