#!/usr/bin/env bash
# Run 308 (session 63): the whole GPU suite of the tree as it stands (the P V overlap, the
# integer row maxima, and session 62's small-page prefill variants: the suite has not run whole
# since session 56), then memcheck over the tests that run prefill over small pages (the new
# `_paged_small` kernels) and the int-vs-float test.
# Build: scripts/build-device.sh at the tree; carry target/device.
set -uo pipefail
source bench/runs/common.sh
run_start
GPU_TESTS_TIMEOUT=380 gpu_tests
BLASST_TEST_CASES=14,15 MEMCHECK_TIMEOUT=150 \
  memcheck skip_decisions_match_the_cpu_tile_by_tile paged_prefill_without_num_pages integer_row_maxima
pack_out logs
