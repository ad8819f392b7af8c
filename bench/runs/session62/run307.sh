#!/usr/bin/env bash
# Run 307 (session 62): (1) the int-vs-float GPU test again, its inputs mended a second time
# (run 306: the zero key in every negative block of KV head 1 kept those blocks, so nothing was
# skipped and the child's own check failed at d = 64 before any comparison; now only every other
# negative block has one, and a CPU-side test checks that every call skips). (2) The d = 128
# Hopper prefill over pages under 64 keys built without the P V overlap (its own `_paged_small`
# variants; run 294 had the overlap 3-7 % slower there): the GPU tests that run prefill over
# 16- and 32-key pages (tile-by-tile decisions against the CPU: cases 14 and 15, new; dense
# against the CPU and float64; num_pages 0 against given), then an interleaved A/B over 16- and
# 64-key pages against the build before (target/device-base: 90e1648, the overlap everywhere).
# Predicted: 16-key pages dense +4..+7 %, Skip-Softmax +3..+5 %; 64-key pages unchanged (same
# kernels; the A/B's noise).
# Build: cp -r target/device target/device-base (at 90e1648), then scripts/build-device.sh;
# carry target/device and target/device-base.
# (3) Added in session 63: the benchmark's tables of the tree (BENCH=0 leaves them out); on an
# H200 they would be its first since run 283, from before the P V overlap.
# Order (session 63, when no machine came in 19 calls): what decides first, so that a run cut
# short still answers it: the 16-key A/B (keep or revert 49261af), the new kernels' tile-by-tile
# cases, the int-vs-float test; SHORT=1 (~2 minutes) stops there. Then the rest of the
# small-page GPU tests, the 64-key A/B and the tables.
set -uo pipefail
source bench/runs/common.sh
run_start
precompile target/device-base
AB_TIMEOUT=60 ab "16-key pages" --page=16
BLASST_TEST_CASES=14,15 GPU_TESTS_LOG=gpu-tests-small.log GPU_TESTS_TIMEOUT=60 \
  gpu_tests_named "small-page prefill, tile by tile" skip_decisions_match_the_cpu_tile_by_tile
GPU_TESTS_TIMEOUT=30 gpu_tests_named "int vs float maxima (every head dim)" integer_row_maxima
[ "${SHORT:-0}" = 1 ] && exit 0
GPU_TESTS_LOG=gpu-tests-paged.log GPU_TESTS_TIMEOUT=200 \
  gpu_tests_named "small-page prefill, dense and num_pages" \
  paged_prefill_without_num_pages dense_matches_cpu_and_float64
AB_TIMEOUT=45 ab "64-key pages" --page=64
[ "${BENCH:-1}" = 0 ] || BENCH_TIMEOUT=300 bench_logged
pack_out logs
