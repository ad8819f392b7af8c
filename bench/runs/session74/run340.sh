#!/usr/bin/env bash
# Run 340 (session 74): one more try for an H200. On an H200, the bf16 tables of today's kernels
# (none since run 283, session 54, before the P V overlap): predicted within 0.05 of run 329's
# H100 ratios (nothing skipped 0.96-1.05x, ~50 % 1.14-1.26x, ~70 % 1.31-1.45x), dense 3-8 %
# below run 329's 456-643 TFLOP/s at the H200's power cap, decode 0.98-1.02x SDPA. On any other
# card, the decode tables in fp16 (run 337 ran the prefill ones; decode fp16 was last run in run
# 183, session 28, H200): predicted within 0.01 of run 329's bf16 decode ratios (1.003x / 0.982x
# / 0.999x SDPA; ~70 % skipped 1.48-1.52x), since decode reads the same bytes in either type.
# (Ran at 22:51 UTC on an H100: the fp16 decode branch, as predicted; bench/RESULTS.md,
# "Session 74". The H200 branch is still to run.)
set -uo pipefail
source bench/runs/common.sh
run_start
if gpu_is H200; then
  BENCH_TIMEOUT=${BENCH_TIMEOUT:-300} bench_logged
  pack_out run340-bench
else
  BENCH_TIMEOUT=${BENCH_TIMEOUT:-150} bench_logged --dtype fp16 --decode-only
  pack_out run340-fp16-decode
fi
