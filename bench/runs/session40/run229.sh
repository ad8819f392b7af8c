#!/usr/bin/env bash
# (Its memcheck step was written out inline when it ran; the same command.)
# Run 229 (session 40): the tree to be committed. Block-table entries of pages of 64 keys or more
# in the warps' lanes (16- and 32-key pages read theirs where the copies use them, as before),
# paged dense decode over pages of 64 keys or more planned for one CTA per SM.
# bench/micro/paged_layout.py: the tree before (target/device-base, 40e9dce), run 228's build
# (session 39's patch as prepared, every page size in lanes: target/device-uniform, all paged calls
# at one CTA per SM) and the tree; then all GPU tests under memcheck; then the benchmark.
source bench/runs/common.sh
LOG="$OUT/run229-steps.log"  # device-check.sh writes run.log afresh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv | tee -a "$LOG"
precompile
LAYOUT_TIMEOUT=150 paged_layout run229 target/device-base/libblasst.so \
  target/device-uniform/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=1 target/device/libblasst.so \
  --pages 16,32,64,128 --size 1x131072 --size 2x32768 --size 8x8192 --size 16x32768 --size 64x8192
MEMCHECK_TIMEOUT=300 memcheck
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
