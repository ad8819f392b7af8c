#!/usr/bin/env bash
# Run 198 (session 31): what an A100's shared memory does to the portable decode kernel at
# d = 128, emulated on the H200. On an A100 (164 KB per SM) its 3-stage pipeline (115 KB a CTA)
# leaves one CTA of 8 warps per SM, where the H200 runs two; 2 stages (80 KB) would fit two.
# Each configuration in its own process (the switches are read once): BLASST_DECODE_KERNEL=mma,
# BLASST_DECODE_STAGES = 3 or 2, BLASST_DECODE_UNITS = 264 (two CTAs per SM) or 132 (one, as on
# an A100 at 3 stages). Absolute GB/s across processes (a few % of noise between them).
source bench/runs/common.sh
precompile
for cfg in "3 264" "3 132" "2 264" "2 132"; do
  set -- $cfg
  step "portable decode, $1 stages, $2 units"
  echo "===== $1 stages, $2 units" >> "$OUT/ab.log"
  BLASST_DECODE_KERNEL=mma BLASST_DECODE_STAGES=$1 BLASST_DECODE_UNITS=$2 PYTHONUNBUFFERED=1 timeout 100 \
    python3 bench/ab_decode.py target/device/libblasst.so --size 1x131072 --size 16x32768 --size 64x8192 >> "$OUT/ab.log" 2>&1
done
step done
