#!/usr/bin/env bash
# Run 334 (session 71): on an H200, the benchmark's tables of the tree's default kernels (the
# last H200 tables are run 283's, session 54, before the P V overlap, the integer maxima and
# LATE_CHECK; run 323's script, which asks the same, has found no H200 since session 68); on any
# card, session 70's prepared run 333: racecheck over the d = 128 tile-by-tile cases of the
# default Hopper kernels. Predicted on an H200, against run 283: prefill dense +3..+8 %, the
# skip-over-dense ratios at ~50 % and ~70 % lower by 0.02-0.06 (dense gained, skipped visits did
# not: as on the H100, runs 294 and 329), decode within 1 %; racecheck: 0 hazards (LATE_CHECK
# touches no shared memory; run 314's racecheck was clean).
set -uo pipefail
source bench/runs/common.sh
run_start
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  BENCH_TIMEOUT=300 bench_logged
else
  echo "not an H200: tables left out" | tee -a "$LOG"
fi
BLASST_TEST_HEAD_DIMS=128 SANITIZE_TIMEOUT=100 sanitize_tile_cases racecheck 0,6,7,8,10,12,13,14,15
pack_out run334
