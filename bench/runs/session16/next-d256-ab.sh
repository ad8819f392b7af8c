#!/usr/bin/env bash
# Answered in session 17 (runs 112-113, bench/runs/session17/): the slowdown came with 892cb11's
# volatile sequence-index read; fixed in 04b1d4b.
# For the next session (not run yet): which commit slowed the d = 256 Hopper prefill dense kernel
# on causal inputs in run 110 (373 / 447 TFLOP/s at 4K / 16K, runs 70-105: 370-403 / 488-498)?
# Build here, one library per commit (git worktree per commit, `cargo build --release --lib`,
# copy target/release/libblasst.so, strip --strip-debug):
#   target/device-61d143d (before the sequence-index change), target/device-892cb11 (after it),
#   target/device-b7499ff (carried slot addresses, session 16's final kernels)
# and carry the three folders. Interleaved, the same inputs: 8K/16K non-causal, 8K/32K causal.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 300 python3 bench/ab_prefill.py target/device-61d143d/libblasst.so target/device-892cb11/libblasst.so \
  target/device-b7499ff/libblasst.so --d256 > "$OUT/ab_d256.log" 2>&1; echo "ab exit $?" >> "$OUT/ab_d256.log"
cat "$OUT/ab_d256.log"
