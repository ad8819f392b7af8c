#!/usr/bin/env bash
# Run 329 (session 69): the benchmark's tables of the tree's default kernels (LATE_CHECK on since
# session 68) on whatever card comes (run 323, the tables on an H200 only, found none). Predicted
# against runs 315 and 320 (session 67, H100): prefill dense +0.5..+2 %, the skip-over-dense
# ratios within +-0.02 (LATE_CHECK speeds dense and skipping alike), decode unchanged.
set -uo pipefail
source bench/runs/common.sh
run_start
BENCH_TIMEOUT=300 bench_logged
pack_out logs
