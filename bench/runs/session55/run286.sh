#!/usr/bin/env bash
# Run 286 (session 55, either card): compute-sanitizer memcheck over every GPU test of the tree as
# it stands (6ed0307; last over all tests in run 278, before session 54's every-lane arrivals in
# the row-tile warps decode kernel) and over gpu_threads.
set -uo pipefail
source bench/runs/common.sh
run_start
MEMCHECK_TIMEOUT=420 memcheck
step "memcheck gpu_threads"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_threads --test-threads=1 > "$OUT/memcheck-threads.log" 2>&1
echo "memcheck (threads) exit $?" | tee -a "$LOG"
grep -E "ERROR SUMMARY|test result" "$OUT/memcheck-threads.log" | tail -2 | tee -a "$LOG"
