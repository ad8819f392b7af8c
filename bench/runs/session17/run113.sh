#!/usr/bin/env bash
# Run 113: the device check of the tree with session 16's wkeep patch and the plain seq_index read
# (target/device), without the portable-kernel pass (their SASS does not change: seq_index is
# only called by the Hopper prefill), then, in what is left of the call, the interleaved d = 256
# A/B of 61d143d (before the sequence index), 1c98fac (session 16's final tree) and this tree,
# appended to d256.log (at most 8 files come back).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
SKIP_MMA_TESTS=1 scripts/device-check.sh > /dev/null 2>&1
left=$((585 - SECONDS))
echo "=== ab d256 ($(date +%T)), ${left} s left" | tee -a "$OUT/run.log" >> "$OUT/d256.log"
if [ "$left" -gt 30 ]; then
  BLASST_CACHE_DIR=/tmp/blasst-cache timeout "$left" python3 bench/ab_prefill.py target/device-61d143d/libblasst.so \
    target/device-1c98fac/libblasst.so target/device/libblasst.so --d256 >> "$OUT/d256.log" 2>&1
  echo "ab exit $?" >> "$OUT/d256.log"
fi
tail -30 "$OUT/run.log"
