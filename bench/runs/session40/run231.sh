#!/usr/bin/env bash
# (Its memcheck step was written out inline when it ran; the same command.)
# Run 231 (session 40): the tree to be committed. The Hopper decode kernel over 16- and 32-key
# pages is a specialisation of its own (PAGED_SMALL: `_paged_small` kernels), so that neither
# paged kernel carries the other's code. bench/micro/paged_layout.py: the tree before
# (target/device-base, 7cec95c) and the tree; then all GPU tests under memcheck (the decode
# occupancy test covers the new kernels); then the benchmark.
source bench/runs/common.sh
LOG="$OUT/run231-steps.log"  # device-check.sh writes run.log afresh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv | tee -a "$LOG"
precompile
LAYOUT_TIMEOUT=150 paged_layout run231 target/device-base/libblasst.so target/device/libblasst.so \
  --pages 16,32,64,128 --size 1x131072 --size 2x32768 --size 8x8192 --size 16x32768 --size 64x8192
MEMCHECK_TIMEOUT=300 memcheck
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
