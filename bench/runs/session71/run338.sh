#!/usr/bin/env bash
# Run 338 (session 71): run 337's sanitizer question alone, for the device time left (~4 min):
# compute-sanitizer's --target-processes default (its --help), and the integer-maxima test under
# memcheck with a log file per process (%p), with and without --target-processes all. Predicted:
# three log files with it, one without it if the default is the application alone.
set -uo pipefail
source bench/runs/common.sh
run_start
MEMCHECK_TIMEOUT=70 memcheck_children
