#!/usr/bin/env bash
# Run 108: prefill A/B of the tree before the >65535-sequences change (device-base, 61d143d)
# against 892cb11 (device-new): run 107 showed blasst dense 2-4 % faster than run 105 while
# "skip, nothing skipped" stayed (its ratio to dense 0.97-0.98, was 0.99-1.02).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-new/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-new/libblasst.so --noncausal > "$OUT/ab_nc.log" 2>&1; echo "ab exit $?" >> "$OUT/ab_nc.log"
cat "$OUT/ab.log" "$OUT/ab_nc.log"
