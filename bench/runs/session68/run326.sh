#!/usr/bin/env bash
# Run 326 (session 68): the GPU tests of the tree with LATE_CHECK on by default (run 325 tested it
# together with VOTE_AND, which is not kept, and timed it alone): the integer maxima bit for bit
# against the float tree (whose kernels pass dense against the CPU and float64), skip-nothing
# bit-identity, the tile-by-tile decisions and lambda > 1, at d = 64, 128 and 256; then
# check_prefill.py and check_paged_prefill.py.
set -uo pipefail
source bench/runs/common.sh
run_start
GPU_TESTS_TIMEOUT=200 gpu_tests_named "default kernels (LATE_CHECK on), d 64, 128, 256" \
  integer_row_maxima skip_kernel_that_skips_nothing skip_decisions_match_the_cpu
prefill_checks
pack_out logs
