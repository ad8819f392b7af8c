#!/usr/bin/env bash
# Run 121 (diagnostic): is decode 16x32K's gap to SDPA the 4 SMs its 256 CTAs (128 pairs x 2
# splits, 2 per SM) leave idle? The shipped kernels at 16x32K and 32x16K (256 CTAs on 128 SMs),
# 33x32K (264 pairs, 1 split: all 132 SMs twice) and 66x16K (528 CTAs, two full rounds), dense on
# Gaussian inputs next to SDPA, in one process.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 200 python3 bench/ab_decode.py target/device-head/libblasst.so --gaussian \
  --size 16x32768 --size 33x32768 --size 32x16384 --size 66x16384 --size 16x32768 --size 33x32768 > "$OUT/decode.log" 2>&1
echo "exit $?" >> "$OUT/decode.log"
cat "$OUT/decode.log"
