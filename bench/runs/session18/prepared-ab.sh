#!/usr/bin/env bash
# Prepared A/B (not run in session 18: no device time left): the prepared persistent prefill
# with two producer warps and the tile taken through one shared word (patch
# prepared-persistent-two-producer-warps.patch built into target/device-pw; spill-free at 24/240
# registers), check_prefill against PyTorch, then an interleaved A/B against the shipped
# kernels (target/device-head: the library of the tree the patch applies to). The GPU tests and
# memcheck come after, in a device check, if it pays.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 25 python3 bench/check_prefill.py --lib target/device-pw/libblasst.so > "$OUT/ab.log" 2>&1
echo "check_prefill exit $?" >> "$OUT/ab.log"
grep -E "^BAD|mismatches" "$OUT/ab.log" | head -5
timeout 70 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device-pw/libblasst.so >> "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
grep -v "^ok " "$OUT/ab.log"
