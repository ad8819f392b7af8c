#!/usr/bin/env bash
# Run 330 (session 69; prepared, not run: the device time left could not start a machine;
# session 70's run 331 ran memcheck over every GPU test instead, 0 errors):
# compute-sanitizer memcheck over the d = 128 prefill tests that skip (tile by tile, lambda > 1,
# skip nothing) on the default kernels (LATE_CHECK on since session 68; the last memcheck of the
# prefill kernels before it was run 293's, session 55, with the P V overlap). LATE_CHECK moves a
# vote and a branch, no memory access, so the prediction is 0 errors. (Every GPU test takes ~190 s
# under memcheck on the H200, common.sh; with a whole session's device time, run `memcheck` bare.)
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=130 memcheck skip_decisions_match_the_cpu skip_kernel_that_skips_nothing
pack_out logs
