#!/usr/bin/env bash
# Run 338 (session 71): run 337's sanitizer question alone, for the device time left (~4 min):
# compute-sanitizer's --target-processes default (its --help), and the integer-maxima test under
# memcheck with a log file per process (%p), with and without --target-processes all. Predicted:
# three log files with it, one without it if the default is the application alone.
set -uo pipefail
source bench/runs/common.sh
run_start
step "compute-sanitizer --help: target-processes"
compute-sanitizer --version | tail -1 | tee -a "$LOG"
compute-sanitizer --help 2>&1 | grep -A3 -- "--target-processes" | tee -a "$LOG"
for opt in "--target-processes all" ""; do
  d="/tmp/san${opt:+-all}"
  mkdir -p "$d"
  step "memcheck, integer-maxima test, log per process (${opt:-the default})"
  timeout 70 compute-sanitizer --tool memcheck $opt --error-exitcode 9 --log-file "$d/%p.log" \
    target/device/gpu_tests --test-threads=1 integer_row_maxima_match_the_float_tree_bit_for_bit > /dev/null 2>&1
  echo "exit $? ; log files: $(ls "$d" | wc -l)" | tee -a "$LOG"
  grep -h "ERROR SUMMARY" "$d"/*.log | tee -a "$LOG"
done
