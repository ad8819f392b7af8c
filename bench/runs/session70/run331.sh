#!/usr/bin/env bash
# Run 331 (session 70): the default kernels under compute-sanitizer memcheck (run 330's question:
# the last prefill memcheck was run 293's, session 55, before LATE_CHECK), and on an H200 the
# benchmark's tables first (the last H200 tables are run 283's, session 54; run 323's question).
# On an H200: tables (~100 s), then memcheck over the d = 128 prefill tests that skip (run 330's
# step). On any other card: memcheck over every GPU test at every head dim (~190 s on an H200).
# Predicted: 0 memcheck errors (LATE_CHECK moves a vote and a branch, no memory access); on an
# H200, against run 283: prefill dense +3..+8 %, the ~50 % and ~70 % ratios 0.02-0.06 lower.
set -uo pipefail
source bench/runs/common.sh
run_start
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  BENCH_TIMEOUT=300 bench_logged
  BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=200 memcheck skip_decisions_match_the_cpu skip_kernel_that_skips_nothing
else
  MEMCHECK_TIMEOUT=480 memcheck
fi
pack_out logs
