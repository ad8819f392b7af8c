#!/usr/bin/env bash
# Run 343 (session 75): the last ~390 s of the session's device time, one more try for an H200.
# On an H200 only (any other card stops at its name): the bf16 prefill tables of today's kernels
# (`bench.py --prefill-only`, no precompile: the benchmark warms every kernel before it times it),
# which no H200 has run (the last H200 tables are run 283's, session 54, before the P V overlap).
# Predicted: within 0.05 of run 329's H100 ratios (nothing skipped 0.96-1.05x, ~50 % 1.14-1.26x,
# ~70 % 1.31-1.45x), dense 3-8 % below run 329's 456-643 TFLOP/s at the H200's power cap.
# (Refused in session 75: too little device time was left to start a machine.)
set -uo pipefail
source bench/runs/common.sh
only_on H200
BENCH_TIMEOUT=${BENCH_TIMEOUT:-120} bench_logged --prefill-only
