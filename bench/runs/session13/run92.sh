#!/usr/bin/env bash
# Run 92: row tiles of the Hopper decode kernel against the portable kernel's one tile at
# d = 64 and d = 256 (16-64 packed rows).
OUT=${OUT:-/tmp/out}
export BLASST_CACHE_DIR=/tmp/blasst-cache
L=target/device/libblasst.so
{
for a in "256 4,32768,32,4,2" "256 4,32768,32,4,4" "256 4,32768,32,4,8" "64 4,32768,32,4,4" "64 4,32768,32,4,8"; do
  set -- $a
  timeout 60 python3 bench/tune_decode.py $L --d $1 --shape $2
  BLASST_DECODE_KERNEL=mma timeout 60 python3 bench/tune_decode.py $L --d $1 --shape $2
done
} > "$OUT/rowtiles-d64-d256.log" 2>&1
cat "$OUT/rowtiles-d64-d256.log"
