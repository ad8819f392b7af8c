#!/usr/bin/env bash
# Run 335 (session 71): run 334's tables alone, only on an H200 (run 334 got an H100 and ran only
# its racecheck); on any other card it stops at the card's name. Prediction as run 334's.
set -uo pipefail
source bench/runs/common.sh
only_on H200
precompile
BENCH_TIMEOUT=300 bench_logged
pack_out run335
