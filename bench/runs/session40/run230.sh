#!/usr/bin/env bash
# Run 230 (session 40): is the shuffled page order's cost (64-key pages 1.1-1.2 %, 16-key 2.6-3.2 %
# against the same pages in order, run 229) address translation? An experiment, not in the tree:
# one thread per CTA prefetches (prefetch.global.L2) one line of the K page and, dense, the V page
# of the tile PAGE_PREFETCH_AHEAD = 8 or 16 iterations ahead (pages of 64 keys or more: the entry
# comes from the lanes). bench/micro/paged_layout.py: the tree (target/device-base, 7cec95c) and the
# two builds; then bench/ab_decode.py (dense and Skip-Softmax, contiguous and 64-key paged).
source bench/runs/common.sh
LOG="$OUT/run230-steps.log"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv | tee -a "$LOG"
LAYOUT_TIMEOUT=150 paged_layout run230 target/device-base/libblasst.so target/device-pf8/libblasst.so \
  target/device-pf16/libblasst.so --pages 16,64,128 \
  --size 1x131072 --size 2x32768 --size 8x8192 --size 16x32768 --size 64x8192
step "ab_decode"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/ab_decode.py target/device-base/libblasst.so target/device-pf8/libblasst.so \
  target/device-pf16/libblasst.so --size 1x131072 --size 16x32768 > "$OUT/run230-ab-decode.log" 2>&1
echo "ab_decode exit $?" | tee -a "$LOG"
