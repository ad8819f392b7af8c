#!/usr/bin/env bash
# Run 233 (session 40): head dim 96 (on the d = 128 kernel) over 64-key pages. Since run 229 paged
# dense calls over 64-key pages or more take the one-CTA-per-SM plan at d = 96 and 128; measured
# at d = 128 only. bench/ab_decode.py --d 96: the tree (d759235) as shipped against the same build
# with every paged call at two CTAs per SM (BLASST_DECODE_PAGED_ONE_PER_SM=0).
source bench/runs/common.sh
LOG="$OUT/run233-steps.log"
step "precompile d = 96"
timeout 60 target/device/blasst precompile --head-dims 96 > /dev/null 2>&1
echo "precompile exit $?" | tee -a "$LOG"
step "ab_decode d = 96"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/ab_decode.py target/device/libblasst.so \
  target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=0 --d 96 --size 1x131072 --size 2x32768 \
  --size 8x8192 --size 16x16384 --size 16x32768 --size 64x8192 > "$OUT/run233-ab-decode.log" 2>&1
echo "ab_decode exit $?" | tee -a "$LOG"
