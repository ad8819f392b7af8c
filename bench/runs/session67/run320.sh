#!/usr/bin/env bash
# Run 320 (session 67): the benchmark's tables of today's tree on an H200 if one comes (the last
# H200 tables: run 283, session 54, before the P V overlap), else on whatever card comes.
# Predicted against run 283: prefill dense +3..+8 % (the overlap, the integer maxima), the
# skip-over-dense ratios at ~50 % and ~70 % lower by 0.02-0.06 (dense gained, skipped visits did
# not), decode as run 283 within 1 %.
set -uo pipefail
source bench/runs/common.sh
run_start
BENCH_TIMEOUT=300 bench_logged
pack_out logs
