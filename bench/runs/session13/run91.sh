#!/usr/bin/env bash
# Run 91: decode of 17-64 packed rows on Hopper as row tiles of the Hopper decode kernel (16
# rows each, 8 at d = 256): GPU tests with both kernel sets (no memcheck, no benchmark), then
# timings against the portable kernel (one tile) and SDPA.
OUT=${OUT:-/tmp/out}
SKIP_SANITIZER=1 SKIP_BENCH=1 scripts/device-check.sh
L=target/device/libblasst.so
{
for s in 4,32768,32,4,4 16,8192,32,4,4 1,131072,32,4,4 4,32768,32,4,8 4,32768,32,8,8 16,32768,32,8,1; do
  timeout 60 python3 bench/tune_decode.py $L --shape $s --sdpa
  BLASST_DECODE_KERNEL=mma timeout 60 python3 bench/tune_decode.py $L --shape $s
done
} > "$OUT/rowtiles.log" 2>&1
cat "$OUT/rowtiles.log"
