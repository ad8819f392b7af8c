#!/usr/bin/env bash
# Run 326 (session 68): the GPU tests of the tree with LATE_CHECK on by default (run 325 tested it
# together with VOTE_AND, which is not kept, and timed it alone): the integer maxima bit for bit
# against the float tree (whose kernels pass dense against the CPU and float64), skip-nothing
# bit-identity, the tile-by-tile decisions and the calibration sweep (whose kernel takes the same
# maxima).
set -uo pipefail
source bench/runs/common.sh
run_start
# (Session 68 had ~270 s of device time left for it: d = 64 and 128 only, no check_prefill.)
BLASST_TEST_HEAD_DIMS=64,128 GPU_TESTS_TIMEOUT=140 gpu_tests_named "default kernels (LATE_CHECK on), d 64, 128" \
  integer_row_maxima skip_kernel_that_skips_nothing skip_decisions_match_the_cpu_tile_by_tile calibration_sweep_matches_cpu
pack_out logs
