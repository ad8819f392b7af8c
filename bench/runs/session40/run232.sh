#!/usr/bin/env bash
# Run 232 (session 40): whole-tile copies without per-row bounds for paged caches of 64-key pages
# or more (the contiguous copies' fast path), target/device-full, against the tree (d759235,
# target/device). bench/micro/paged_layout.py (one token), then bench/ab_decode.py with 8 tokens
# (32 packed rows per KV head: two row tiles, like the benchmark's speculative decode).
source bench/runs/common.sh
LOG="$OUT/run232-steps.log"
precompile
LAYOUT_TIMEOUT=100 paged_layout run232 target/device/libblasst.so target/device-full/libblasst.so \
  --pages 64,128 --size 1x131072 --size 2x32768 --size 16x32768 --size 64x8192
step "ab_decode, 8 tokens"
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_decode.py target/device/libblasst.so target/device-full/libblasst.so \
  --tokens 8 --size 4x32768 --size 1x131072 > "$OUT/run232-ab-decode.log" 2>&1
echo "ab_decode exit $?" | tee -a "$LOG"
