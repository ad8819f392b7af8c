#!/usr/bin/env bash
# Run 118: persistent Hopper prefill with a dynamic tile counter (target/device; the producer has
# 56 registers and the consumers 224 in every layout, as the paged kernels had: at 24/240 the
# producer spilled). First an interleaved A/B against the tree before it (target/device-head,
# 2799c10) and against itself with BLASST_PREFILL_PERSIST=0 (one CTA per tile: the register
# split alone), then the device check without the benchmark and the portable-kernel pass,
# memcheck on the prefill tests (at most 8 files come back: the A/B goes to bench.log).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
echo "=== ab ($(date +%T))" > "$OUT/bench.log"
BLASST_CACHE_DIR=/tmp/blasst-cache timeout 200 python3 bench/ab_prefill.py target/device-head/libblasst.so \
  target/device/libblasst.so target/device/libblasst.so:BLASST_PREFILL_PERSIST=0 >> "$OUT/bench.log" 2>&1
echo "ab exit $?" >> "$OUT/bench.log"
SKIP_MMA_TESTS=1 SKIP_BENCH=1 SANITIZE_FILTER="dense_matches skip_decisions_match_the_cpu_tile skip_kernel_that more_sequences calibration_sweep calls_replay" \
  scripts/device-check.sh > /dev/null 2>&1
tail -12 "$OUT/run.log"
cat "$OUT/bench.log"
