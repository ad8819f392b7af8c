#!/usr/bin/env bash
# Run 112: three kernel variants against the tree of 1c98fac (target/device), interleaved:
#   device-poly4 / device-poly2: one in 4 / one in 2 of the softmax's exponentials on the FMA pipe
#     (poly_exp2) instead of MUFU (EXP2_POLY_EVERY 4 / 2);
#   device-wkeep: session 16's prepared patch (the votes through carried shared addresses);
#   device-61d143d (d = 256 only): the tree before the sequence-index change, for run 110's
#     slower d = 256 causal dense.
# check_prefill with both poly builds first (their numerics against PyTorch).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv > "$L" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -l 5 > "$OUT/smi.log" 2>&1 &
SMI=$!
for v in poly4 poly2; do
  timeout 120 python3 bench/check_prefill.py --lib target/device-$v/libblasst.so > "$OUT/check_$v.log" 2>&1; echo "check_prefill $v exit $?" | tee -a "$L"
  grep -E "^BAD|mismatches" "$OUT/check_$v.log" | head -5 | tee -a "$L"
done
echo "=== ab default $(date +%T)" >> "$L"
timeout 240 python3 bench/ab_prefill.py target/device/libblasst.so target/device-poly4/libblasst.so \
  target/device-poly2/libblasst.so target/device-wkeep/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"
echo "=== ab d256 $(date +%T)" >> "$L"
timeout 220 python3 bench/ab_prefill.py target/device-61d143d/libblasst.so target/device/libblasst.so \
  target/device-wkeep/libblasst.so target/device-poly4/libblasst.so --d256 > "$OUT/ab_d256.log" 2>&1; echo "ab exit $?" >> "$OUT/ab_d256.log"
echo "=== end $(date +%T)" >> "$L"
kill $SMI
cat "$L" "$OUT/ab.log" "$OUT/ab_d256.log"
