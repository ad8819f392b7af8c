#!/usr/bin/env bash
# Run 245 (session 44): three CTAs per SM for the Hopper decode kernel at d = 128 (a diagnostic
# build, target/device-3cta: decode90_ctas_per_sm 3 and the ring (KSLOTS, LAG) = (2, 1) at
# d = 128, 168 registers), against the tree (target/device: two CTAs, (3, 2)). Run 244 found
# the 32-row calls bound by each tile's chain, not L2: a third CTA per SM hides a third chain.
# Speculative decode (32 rows) and one-token decode, interleaved; then the tree's dense and
# tile-by-tile GPU tests (their new three- and four-tile cases on the single-tile kernels).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
A=target/device/libblasst.so
B=target/device-3cta/libblasst.so
precompile target/device
precompile target/device-3cta
step "A/B 3 CTAs: speculative decode, paged layout"
timeout 100 python3 bench/micro/paged_layout.py $A $B --tokens 4 --heads 32/4 \
  --size 4x32768 --size 1x131072 --size 16x32768 --pages 16,64 > "$OUT/3cta-paged-layout.log" 2>&1
echo "paged layout exit $?" | tee -a "$LOG"
step "A/B 3 CTAs: dense and Skip-Softmax, 8 tokens x GQA 4"
timeout 80 python3 bench/ab_decode.py $A $B --tokens 8 --size 4x32768 --size 16x16384 > "$OUT/3cta-ab-spec.log" 2>&1
echo "ab spec exit $?" | tee -a "$LOG"
step "A/B 3 CTAs: one token"
timeout 120 python3 bench/ab_decode.py $A $B > "$OUT/3cta-ab-decode.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
step "gpu tests: dense and tile by tile (the tree)"
timeout 200 target/device/gpu_tests --test-threads=1 dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
