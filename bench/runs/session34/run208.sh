#!/usr/bin/env bash
# Run 208 (session 34): DRAM read patterns of the decode 16x32K cache (bench/micro/dram_pattern.py)
# and, in the same run, blasst decode dense vs PyTorch SDPA at 16x32K (bench/ab_decode.py).
source bench/runs/common.sh
precompile
step "dram patterns"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/micro/dram_pattern.py > "$OUT/dram.log" 2>&1
echo "dram exit $?" | tee -a "$LOG"
step "ab decode 16x32K"
PYTHONUNBUFFERED=1 timeout 120 python3 bench/ab_decode.py target/device/libblasst.so --size 16x32768 --gaussian > "$OUT/ab-decode.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
