#!/usr/bin/env bash
# Run 337 (session 71): first, on any card, what compute-sanitizer's --target-processes option
# defaults to (its --help), and one memcheck of the integer-maxima test with a log file per
# process (%p), so the logs show whether its two child processes were checked (run 336 ran it
# with --target-processes all: 0 errors, but one summary for the three processes). Predicted:
# three log files with it, one without it if the default is the application alone. Then, only on
# an H200, run 334's tables (its prediction).
set -uo pipefail
source bench/runs/common.sh
step "compute-sanitizer --help: target-processes"
compute-sanitizer --version | tail -1 | tee -a "$LOG"
compute-sanitizer --help 2>&1 | grep -A3 -- "--target-processes" | tee -a "$LOG"
for opt in "--target-processes all" ""; do
  d="/tmp/san${opt:+-all}"
  mkdir -p "$d"
  step "memcheck, integer-maxima test, log per process (${opt:-the default})"
  timeout 120 compute-sanitizer --tool memcheck $opt --error-exitcode 9 --log-file "$d/%p.log" \
    target/device/gpu_tests --test-threads=1 integer_row_maxima_match_the_float_tree_bit_for_bit > /dev/null 2>&1
  echo "exit $? ; log files: $(ls "$d" | wc -l)" | tee -a "$LOG"
  grep -h "ERROR SUMMARY" "$d"/*.log | tee -a "$LOG"
done
only_on H200
precompile
BENCH_TIMEOUT=300 bench_logged
pack_out run337
