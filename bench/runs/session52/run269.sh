#!/usr/bin/env bash
# Run 269 (session 52): S split per plan tile with Q from registers (bench/runs/session52/
# split-s-rs.patch: the d = 128 contiguous skip kernel issues a visit's S as two m64n64 commit
# groups, A = Q in registers, loaded once per CTA; the upper tile's row maxima are taken while
# the lower tile's S and P V_{t-1} run). target/device = the tree + the patch, target/device-base
# = the tree (libblasst.so and the blasst tool only). Built here by
# bench/runs/session52/build269.sh. Either card.
# Prediction: a visit that skips both tiles (0.54-0.62 of a dense visit, run 114) ~0.51-0.55,
# one-kept visits unchanged or slightly shorter: ~50 % +1-3 %, ~70 % +2-5 %, nothing skipped
# within +-1 % if an RS m64n64 S runs at the SS m64n128 rate (shared memory 64 B per cycle).
# Dense: the same SASS (only the two d = 128 contiguous skip cubins differ, nvdisasm).
# 1. correctness of the patched skip kernel: check_prefill.py, the d = 128 GPU tests that run it
#    (tile by tile against the CPU, lambda > 1, nothing skipped bit-identical to dense, sweep).
# 2. interleaved A/B (bench/ab_prefill.py --stats): 4K-32K non-causal, then 8K/16K/32K mixed causal.
# 3. memcheck over the tile-by-tile test at d = 128.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile_ab
step "check_prefill (patched)"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches" "$OUT/check.log" | head -5 | tee -a "$LOG"
step "gpu tests at d = 128 (patched)"
BLASST_TEST_HEAD_DIMS=128 timeout 200 target/device/gpu_tests --test-threads=1 skip_ calibration_sweep dense_matches padded_head_dims > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked" "$OUT/gpu-tests.log" | head -12 | tee -a "$LOG"
AB_TIMEOUT=150 ab "non-causal 4K-32K" --noncausal --stats
grep -E "dense|skip|speedup" "$OUT/ab.log" | cut -c1-160
AB_TIMEOUT=150 ab "default cases (8K, 8K causal, 16K, 32K causal)" --stats
sed -n '/default cases/,$p' "$OUT/ab.log" | grep -E "dense|skip|speedup" | cut -c1-160
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=150 memcheck skip_decisions_match_the_cpu_tile_by_tile
