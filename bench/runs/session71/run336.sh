#!/usr/bin/env bash
# Run 336 (session 71), the command as it ran on the warm H100 of run 335 (which stopped at
# `only_on H200`): memcheck over the integer-maxima test with --target-processes all, whether the
# tool checks its two child processes. Predicted: 0 errors, a summary per process. Found: 0
# errors, exit 0, but one summary for the three processes (run 337 looks further).
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$LOG"
SANITIZER_OPTS="--target-processes all" MEMCHECK_TIMEOUT=150 memcheck integer_row_maxima_match_the_float_tree_bit_for_bit
head -40 "$OUT/memcheck.log"
