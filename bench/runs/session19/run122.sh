#!/usr/bin/env bash
# Run 122: balanced dense decode (plan::balanced_decode: a dense Hopper decode call whose plan
# leaves CTA slots idle takes equal shares of all its units' tiles, one per slot, merged by
# kernels/merge.cu). The new GPU test and the decode tests it touches, then an interleaved decode
# A/B: the shipped kernels (target/device-head), the new build (target/device) and the new build
# with the balanced cut off (BLASST_DECODE_BALANCED=0), dense on Gaussian inputs next to SDPA.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$OUT/smi.log" 2>&1
timeout 240 target/device/gpu_tests --test-threads=1 --nocapture balanced_dense_decode dense_matches_cpu calls_replay decode_plan_counts > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
grep -E "^test |test result|exit|panicked" "$OUT/gpu_tests.log" | tail -12
L="target/device-head/libblasst.so target/device/libblasst.so target/device/libblasst.so:BLASST_DECODE_BALANCED=0"
timeout 200 python3 bench/ab_decode.py $L --gaussian > "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$OUT/smi.log" 2>&1
cat "$OUT/ab.log"
