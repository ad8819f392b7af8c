#!/usr/bin/env bash
# Run 161 (session 24): (1) the host time of a call (examples/host_cost.rs) with session 23's
# review commits (a call's plan and launch share one cuCtxGetCurrent: ctx_from), three processes;
# (2) decode 16 x 32K dense, one split (one CTA per SM, 128 CTAs: target/device-var, built from
# ../session20/run136-decode-one-split-16x32k.patch) against the shipped plan (two splits,
# target/device) next to SDPA on a fourth GPU lease (runs 129, 130, 136: +1.8 %, -1.6 %, +1.5 %),
# four processes, build order swapped every other one; 32 x 16K (one split in both) as control.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run161-host-cost.log"
for i in 1 2 3; do
  echo "===== device ($i)" >> "$L"
  timeout 60 target/device/host_cost >> "$L" 2>&1; echo "exit $?" >> "$L"
done
A=target/device/libblasst.so B=target/device-var/libblasst.so
for i in 1 2 3 4; do
  if [ $((i % 2)) = 1 ]; then LL="$A $B"; else LL="$B $A"; fi
  echo "== process $i: $LL" >> "$OUT/run161-ab.log"
  timeout 80 python3 bench/ab_decode.py $LL --gaussian --size 16x32768 --size 32x16384 >> "$OUT/run161-ab.log" 2>&1
done
grep -E "^(prefill|decode|call|bare|  )" "$L" | head -40
grep -E "==|contig dense|vs sdpa" "$OUT/run161-ab.log" | cut -c1-220
