#!/usr/bin/env bash
# Run 89: the wide Hopper decode kernel (two row groups, 17-32 packed rows): GPU tests with both
# kernel sets (no memcheck, no benchmark), then decode timings at 16-32 rows against the
# portable kernel and SDPA.
OUT=${OUT:-/tmp/out}
SKIP_SANITIZER=1 SKIP_BENCH=1 scripts/device-check.sh
L=target/device/libblasst.so
{
for s in 4,32768,32,4,4 16,8192,32,4,4 4,32768,32,8,8 1,131072,32,4,4 16,32768,32,8,1; do
  timeout 60 python3 bench/tune_decode.py $L --shape $s --sdpa
  BLASST_DECODE_KERNEL=mma timeout 60 python3 bench/tune_decode.py $L --shape $s
done
} > "$OUT/wide.log" 2>&1
cat "$OUT/wide.log"
