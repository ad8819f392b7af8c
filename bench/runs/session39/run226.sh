#!/usr/bin/env bash
# (Its paged_layout step was written out inline when it ran; the same command.)
# Run 226 (session 39): are 128-key (and 32-key) pages faster planned for one CTA per SM, like
# 256-key ones (run 225)? bench/micro/paged_layout.py on 9843269's build, as shipped (two CTAs per
# SM below 256-key pages) and with BLASST_DECODE_PAGED_ONE_PER_SM=1, at the sizes where the plans differ.
source bench/runs/common.sh
precompile
LAYOUT_TIMEOUT=150 paged_layout run226 target/device/libblasst.so \
  target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=1 --pages 32,128 \
  --size 1x131072 --size 2x32768 --size 8x8192
