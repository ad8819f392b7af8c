#!/usr/bin/env bash
# (Its paged_layout step was written out inline when it ran; the same command.)
# Run 223 (session 39): the small-page copies reading each block-table entry once
# (kernels/decode_sm90.cu load_tile_small_pages) against the shipped build (fb0e7f5,
# target/device-base), and with paged dense calls planned for one CTA per SM
# (BLASST_DECODE_PAGED_ONE_PER_SM=1), over shuffled and in-order pages
# (bench/micro/paged_layout.py); then the GPU tests of the new build.
source bench/runs/common.sh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
precompile
paged_layout run223 target/device-base/libblasst.so target/device/libblasst.so \
  target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=1
gpu_tests
