#!/usr/bin/env bash
# Run 221 (session 39): the paged decode's block-table reads moved ahead of the copies
# (kernels/decode_sm90.cu `pg`), interleaved against the shipped build (fb0e7f5,
# target/device-base), and the same build with paged dense calls planned for one CTA per SM
# (BLASST_DECODE_PAGED_ONE_PER_SM=1); then the GPU tests of the new build. The kernel change
# (run221-page-prefetch.patch, on fb0e7f5) was not kept: bench/RESULTS.md session 39.
source bench/runs/common.sh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
precompile
for i in 1 2; do
  step "ab decode pass $i"
  timeout 250 python3 bench/ab_decode.py target/device-base/libblasst.so target/device/libblasst.so \
    target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=1 \
    --size 1x131072 --size 16x32768 --size 64x8192 --gaussian > "$OUT/run221-ab-decode-$i.log" 2>&1
  echo "ab exit $?" | tee -a "$LOG"
done
gpu_tests
