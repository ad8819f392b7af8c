#!/usr/bin/env bash
# (Its memcheck step was written out inline when it ran; the same command.)
# Run 228 (session 40): session 39's prepared page-entries-in-lanes.patch (a split's block-table
# entries a batch ahead in the warps' lanes, taken by shuffle) on the GPU. bench/micro/paged_layout.py
# with the tree without the patch (target/device-base, 40e9dce) and the patched build with every
# paged call at one CTA per SM (=1) and at two (=0), 16-, 64- and 256-key pages, at the sizes where
# the plans differ and at 16x32K; then all GPU tests of the patched build under memcheck.
source bench/runs/common.sh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
precompile
LAYOUT_TIMEOUT=200 paged_layout run228 target/device-base/libblasst.so \
  target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=1 target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=0 \
  --pages 16,64,256 --size 1x131072 --size 2x32768 --size 8x8192 --size 16x32768
MEMCHECK_TIMEOUT=300 memcheck
