#!/usr/bin/env bash
# Run 237 (session 41): the tree to be committed (run 236's device-patch with its comments
# rewritten and a static_assert added: the same kernel code). paged_layout against the session's
# start (device-base, 75a8113) at the row-tiled and 16-row shapes, all GPU tests under memcheck,
# then the benchmark (the tables).
source bench/runs/common.sh
LOG="$OUT/run237-steps.log"  # device-check.sh writes run.log afresh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv | tee -a "$LOG"
precompile
LAYOUT_TIMEOUT=100 paged_layout run237-rows target/device-base/libblasst.so target/device/libblasst.so \
  --tokens 4 --heads 32/4 --pages 16,32,64 --size 1x131072 --size 4x32768
LAYOUT_TIMEOUT=60 paged_layout run237-one16rows target/device-base/libblasst.so target/device/libblasst.so \
  --heads 64/4 --pages 16,32 --size 16x8192 --size 1x131072
MEMCHECK_TIMEOUT=230 memcheck
step benchmark
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
