#!/usr/bin/env bash
# Run 222 (session 39), on the shipped kernels (fb0e7f5; the tree's bench.py times paged dense
# decode next to SDPA): bench/micro/paged_layout.py (paged dense decode over shuffled and in-order
# pages against the contiguous call), then scripts/device-check.sh's benchmark.
source bench/runs/common.sh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
precompile
step "paged layout"
timeout 200 python3 bench/micro/paged_layout.py target/device/libblasst.so > "$OUT/run222-paged-layout.log" 2>&1
echo "paged layout exit $?" | tee -a "$LOG"
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
