#!/usr/bin/env bash
# Run 234 (session 40): where speculative decode over a paged cache loses 7 % against the
# contiguous call (run 231: 103.2 vs 95.8 us; 32 packed rows, two row tiles per KV head):
# bench/micro/paged_layout.py --tokens 4 --heads 32/4 (the benchmark's shape) on the tree,
# pages of 16, 64 and 128 keys, shuffled and in order.
source bench/runs/common.sh
LOG="$OUT/run234-steps.log"
precompile
LAYOUT_TIMEOUT=100 paged_layout run234 target/device/libblasst.so --tokens 4 --heads 32/4 \
  --pages 16,64,128 --size 4x32768 --size 1x131072 --size 16x8192
