#!/usr/bin/env bash
# Run 333 (session 70): racecheck over the d = 128 tile-by-tile cases of the default Hopper
# kernels, the part of run 332 left out for time (its synccheck was clean). Predicted: 0 hazards
# (LATE_CHECK, the last kernel change, touches no shared memory; run 314's racecheck was clean).
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_TEST_HEAD_DIMS=128 SANITIZE_TIMEOUT=100 sanitize_tile_cases racecheck 0,6,7,8,10,12,13,14,15
