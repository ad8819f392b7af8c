#!/usr/bin/env bash
# Run 129: dense contiguous decode at d = 128 on the Hopper kernel planned for one CTA per
# multiprocessor (plan::dense_one_cta_per_sm; runs 127-128: at 16x32K SDPA's 128 CTAs read DRAM
# at 94.7 % of peak, our 256 at 93 %). Interleaved decode A/B: the shipped kernels and plan
# (target/device-head), the new build (target/device) and the new build with the rule off
# (BLASST_DECODE_DENSE_ONE_PER_SM=0), dense on Gaussian inputs next to SDPA; then the GPU tests.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$OUT/smi.log" 2>&1
L="target/device-head/libblasst.so target/device/libblasst.so target/device/libblasst.so:BLASST_DECODE_DENSE_ONE_PER_SM=0"
timeout 200 python3 bench/ab_decode.py $L --gaussian > "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
grep -E "dense|vs sdpa|exit" "$OUT/ab.log"
timeout 300 target/device/gpu_tests --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
grep -E "^test |test result|exit|panicked" "$OUT/gpu_tests.log" | tail -16
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$OUT/smi.log" 2>&1
