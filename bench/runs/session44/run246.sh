#!/usr/bin/env bash
# Run 246 (session 44): the Hopper decode kernel's three-CTAs-per-SM specialisation (_3cta,
# ring (2, 1), 168 registers) for calls of several row tiles whose plan fills that wave
# (attn::plan::decode_three_per_sm): the GPU tests (new cases of 384 CTAs: dense, paged, ragged,
# tile by tile, the calibration sweep against the skip calls; the occupancy test over the new
# variants), memcheck over the dense and tile-by-tile tests at d = 128, then one library with the
# rule off (BLASST_DECODE_THREE_PER_SM=0: two CTAs per SM, the plan before) against on.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
GPU_TESTS_TIMEOUT=330 gpu_tests  # (common.sh since the session's review: the same commands)
grep -E "3cta" "$OUT/gpu-tests.log" | head -4 | tee -a "$LOG"
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=100 memcheck dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile
# (The A/B steps as run are common.sh's spec_ab since session 44's review: the same commands,
# the first run with timeouts of 70 / 60 s.)
spec_ab three BLASST_DECODE_THREE_PER_SM
