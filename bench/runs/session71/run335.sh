#!/usr/bin/env bash
# Run 335 (session 71): run 334's tables alone, only on an H200 (run 334 got an H100 and ran only
# its racecheck); on any other card it stops at the card's name. Prediction as run 334's. Then
# memcheck over the integer-maxima test with --target-processes all: whether its two child
# processes are checked (and print a summary of their own) when the tool is told to follow them;
# predicted: three summaries, 0 errors.
set -uo pipefail
source bench/runs/common.sh
only_on H200
precompile
BENCH_TIMEOUT=300 bench_logged
SANITIZER_OPTS="--target-processes all" MEMCHECK_TIMEOUT=120 memcheck integer_row_maxima_match_the_float_tree_bit_for_bit
pack_out run335
