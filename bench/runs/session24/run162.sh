#!/usr/bin/env bash
# Run 162 (session 24): with one CTA per SM (the one-split plan of target/device-var, see
# run161.sh), does a deeper Hopper decode pipeline (BLASST_DECODE90=K,LAG: K tiles in flight,
# P V lag; shipped (3, 2), sized for two CTAs per SM) close 16 x 32K's gap to SDPA? One process
# per depth (the variable is read once per process, and Builds' per-build settings cannot carry
# a comma), each timing device-var at that depth against SDPA (ab_decode.py, interleaved, medians
# of 5), twice over; the shipped build first and last for reference; 1 x 128K (16 splits, one CTA
# per SM in both builds) alongside.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run162-ab.log"
run() { timeout 60 python3 bench/ab_decode.py "$@" --gaussian --size 16x32768 --size 1x131072 >> "$L" 2>&1; }
echo "== shipped" >> "$L"; run target/device/libblasst.so
for round in 1 2; do
  for cfg in 3,2 4,2 5,2 6,2 6,3 8,4; do
    echo "== device-var BLASST_DECODE90=$cfg" >> "$L"
    BLASST_DECODE90=$cfg run target/device-var/libblasst.so
  done
done
echo "== shipped" >> "$L"; run target/device/libblasst.so
grep -E "==|contig dense|vs sdpa" "$L" | cut -c1-230
