#!/usr/bin/env bash
# Run 337 (session 71, prepared, not run): first the tables: on an H200 run 334's (its
# prediction); on any other card the prefill tables in fp16 (the last fp16 tables are run 183's,
# session 28, H200, before sessions 56-68's kernel changes: ratios as in bf16 within 0.05, dense
# 3-7 % below bf16). Predicted on an H100: the skip-over-dense ratios within 0.05 of run 329's
# bf16 ones (1.14-1.26x at ~50 %, 1.31-1.45x at ~70 %), dense 0-7 % below run 329's bf16 456-643
# TFLOP/s. Then `memcheck_children`: whether compute-sanitizer follows the integer-maxima test's
# two child processes (run 336 ran it with --target-processes all: 0 errors, but one summary for
# the three processes). Predicted: three log files with --target-processes all, one without it
# if the tool's default is the application alone.
set -uo pipefail
source bench/runs/common.sh
run_start
# (Session 72: each part packed as soon as it ends, so that a call cut by its limit still brings
# back what finished; BENCH_TIMEOUT and MEMCHECK_TIMEOUT from the caller's environment cut the
# parts to a short budget, e.g. 150 and 90 s.)
if gpu_is H200; then
  BENCH_TIMEOUT=${BENCH_TIMEOUT:-300} bench_logged
  pack_out run337-bench
else
  mkdir -p "$OUT/fp16"
  OUT="$OUT/fp16" BENCH_TIMEOUT=${BENCH_TIMEOUT:-240} bench_logged --dtype fp16 --prefill-only
  pack_out run337-fp16
fi
MEMCHECK_TIMEOUT=${MEMCHECK_TIMEOUT:-120} memcheck_children
pack_out run337-sanitizer
