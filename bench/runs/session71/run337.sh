#!/usr/bin/env bash
# Run 337 (session 71): the tables below, then, on any card, what compute-sanitizer's --target-processes option
# defaults to (its --help), and one memcheck of the integer-maxima test with a log file per
# process (%p), so the logs show whether its two child processes were checked (run 336 ran it
# with --target-processes all: 0 errors, but one summary for the three processes). Predicted:
# three log files with it, one without it if the default is the application alone. First, on an
# H200, run 334's tables (its prediction); on any other card the prefill tables in fp16 (the last
# fp16 tables are run 183's, session 28, H200, before sessions 56-68's kernel changes: ratios as
# in bf16 within 0.05, dense 3-7 % below bf16). Predicted on an H100: the skip-over-dense ratios
# within 0.05 of run 329's bf16 ones (1.14-1.26x at ~50 %, 1.31-1.45x at ~70 %), dense 0-7 %
# below run 329's bf16 456-643 TFLOP/s.
set -uo pipefail
source bench/runs/common.sh
run_start
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  BENCH_TIMEOUT=300 bench_logged
else
  mkdir -p "$OUT/fp16"
  OUT="$OUT/fp16" BENCH_TIMEOUT=240 bench_logged --dtype fp16 --prefill-only
fi
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
pack_out run337
