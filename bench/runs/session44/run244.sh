#!/usr/bin/env bash
# Run 244 (session 44): the Hopper decode kernel's row pairs (two 16-row tiles per CTA sharing
# the K ring, kernels/decode_sm90.cu PAIRED) on the GPU for the first time: the GPU tests (the
# row-tile cases and the occupancy test run the pairs at d = 128), memcheck over the dense and
# tile-by-tile tests at d = 128, then interleaved A/Bs of one library with the pairs off
# (BLASST_DECODE_PAIRS=0: one tile per CTA, as before) and on: speculative decode 4 tokens x
# GQA 8 (32 rows, the benchmark's table) contiguous and paged, and dense / Skip-Softmax at 8
# tokens x GQA 4 (32 rows).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > "$OUT/smi.log" 2>&1
precompile
GPU_TESTS_TIMEOUT=280 gpu_tests  # (common.sh since the session's review: the same commands)
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=120 memcheck dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile
# (The A/B steps as run are common.sh's spec_ab since session 44's review: the same commands,
# the first run with timeouts of 100 / 100 s.)
spec_ab pairs BLASST_DECODE_PAIRS
