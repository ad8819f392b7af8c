#!/usr/bin/env bash
# Run 136: is one split (one CTA per SM, 128 CTAs, no cluster) better than two at 16 x 32K dense
# decode, the one decode target still missed (0.979x SDPA)? Runs 129-130 disagreed (+1.8 % and
# -1.6 %), each from one process. Here six processes, each with fresh allocations, time the shipped
# plan (device-head) and the variant whose one-CTA-per-SM rule also takes 1 split
# (device-var, run136-decode-one-split-16x32k.patch) in alternation next to SDPA, the order of
# the two builds swapped every other process.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
A=target/device-head/libblasst.so B=target/device-var/libblasst.so
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then L="$A $B"; else L="$B $A"; fi
  echo "== process $i: $L" >> "$OUT/ab.log"
  timeout 80 python3 bench/ab_decode.py $L --gaussian --size 16x32768 --size 32x16384 >> "$OUT/ab.log" 2>&1
done
grep -E "==|contig dense|vs sdpa" "$OUT/ab.log" | cut -c1-220
