#!/usr/bin/env bash
# Run 99 (timing only, after the final check): interleaved prefill A/B of the final build against
#  - device-nov: a DIAGNOSTIC build whose TMA producer never loads V (wrong output; its times
#    bound what loading V only for kept visits could save: the L2 -> SM traffic of a skipped
#    visit is K and V, 64 KB, of which V is waste), and
#  - device-l2p256: the tensor maps with 256-byte L2 promotion instead of 128.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 500 python3 bench/ab_prefill.py target/device-final/libblasst.so target/device-nov/libblasst.so target/device-l2p256/libblasst.so > "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"; cat "$OUT/ab.log"
