#!/usr/bin/env bash
# Run 211 (session 35): one CTA per SM for dense decode at d = 96 and 80 (the padded dims keep
# two, dense_one_cta_per_sm being d = 128's own). BLASST_DECODE_UNITS=132 (read once per
# process, so each setting is a copy of the library at its own path) plans every call for one
# wave of 132 CTAs: 16 x 32K and 16 x 16K get 1 split instead of 2, 1 x 64K 16 instead of 33.
# Builds: base = 78e4a3d (L2 hint at every dim), device = the kept rule (no hint at d = 96).
# Prediction (bench/micro/dram_pattern.py, run 208: at d = 96 one CTA per SM with the hint
# streams 4.46 TB/s, two per SM without it 4.04): base at 132 units fastest at d = 96 16 x 32K
# if the kernel keeps ~128 KB per SM in flight with one CTA; if it keeps only its two-CTA depth
# (about half of that), no gain (the micro's 64 KB per SM: 4.1-4.2 TB/s).
source bench/runs/common.sh
for b in device-base device; do mkdir -p /tmp/u132/$b && cp target/$b/libblasst.so /tmp/u132/$b/; done
for d in 96 80; do
  step "ab decode d = $d, units 132"
  echo "===== d = $d" >> "$OUT/ab-decode.log"
  PYTHONUNBUFFERED=1 timeout 150 python3 bench/ab_decode.py target/device-base/libblasst.so \
    /tmp/u132/device-base/libblasst.so:BLASST_DECODE_UNITS=132 target/device/libblasst.so \
    /tmp/u132/device/libblasst.so:BLASST_DECODE_UNITS=132 --d $d \
    --size 1x65536 --size 16x16384 --size 16x32768 --size 64x8192 >> "$OUT/ab-decode.log" 2>&1
  echo "ab decode d = $d exit $?" | tee -a "$LOG"
done
step done
