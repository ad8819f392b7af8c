#!/usr/bin/env bash
# Run 124: bench/ab_prefill.py after its builds moved to blasst_ctypes.Builds (session 19): the
# shipped library against itself with the portable kernel (BLASST_PREFILL_KERNEL=mma, a per-build
# environment), default cases.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 150 python3 bench/ab_prefill.py target/device-head/libblasst.so target/device-head/libblasst.so:BLASST_PREFILL_KERNEL=mma > "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
grep -v "^ok " "$OUT/ab.log" | head -40
