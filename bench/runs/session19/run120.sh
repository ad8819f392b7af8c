#!/usr/bin/env bash
# Run 120: session 18's prepared persistent prefill (two producer warps, the next tile through
# one shared word; patch ../session18/prepared-persistent-two-producer-warps.patch, built into
# target/device-pw) against the shipped kernels (target/device-head), and the same build with
# persistence off (BLASST_PREFILL_PERSIST=0: one CTA per tile, the patched kernel's code).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$OUT/smi.log" 2>&1
timeout 25 python3 bench/check_prefill.py --lib target/device-pw/libblasst.so > "$OUT/ab.log" 2>&1
echo "check_prefill exit $?" >> "$OUT/ab.log"
grep -E "^BAD|mismatches" "$OUT/ab.log" | head -5
L="target/device-head/libblasst.so target/device-pw/libblasst.so target/device-pw/libblasst.so:BLASST_PREFILL_PERSIST=0"
timeout 100 python3 bench/ab_prefill.py $L >> "$OUT/ab.log" 2>&1
echo "ab exit $?" >> "$OUT/ab.log"
timeout 100 python3 bench/ab_prefill.py $L --noncausal >> "$OUT/ab.log" 2>&1
echo "ab noncausal exit $?" >> "$OUT/ab.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$OUT/smi.log" 2>&1
grep -v "^ok " "$OUT/ab.log"
