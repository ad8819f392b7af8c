#!/usr/bin/env bash
# Run 116: the first GPU run of the persistent Hopper prefill (target/device): the device check
# without the benchmark and without the portable-kernel pass (their code is unchanged), memcheck
# on the prefill tests only, then an interleaved A/B of the tree before it (target/device-head,
# 2799c10), this tree, and this tree with BLASST_PREFILL_PERSIST=0 (one CTA per tile), appended
# to bench.log (at most 8 files come back).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
SKIP_MMA_TESTS=1 SKIP_BENCH=1 SANITIZE_FILTER="dense_matches skip_decisions_match_the_cpu_tile skip_kernel_that more_sequences calibration_sweep" \
  scripts/device-check.sh > /dev/null 2>&1
left=$((590 - SECONDS))
echo "=== ab ($(date +%T)), ${left} s left" | tee -a "$OUT/run.log" >> "$OUT/bench.log"
if [ "$left" -gt 30 ]; then
  BLASST_CACHE_DIR=/tmp/blasst-cache timeout "$left" python3 bench/ab_prefill.py target/device-head/libblasst.so \
    target/device/libblasst.so target/device/libblasst.so:BLASST_PREFILL_PERSIST=0 >> "$OUT/bench.log" 2>&1
  echo "ab exit $?" >> "$OUT/bench.log"
fi
tail -30 "$OUT/run.log"
