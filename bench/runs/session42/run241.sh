#!/usr/bin/env bash
# Run 241 (session 42): the tree with lanes-long-splits.patch applied (decode_sm90.cu IN_LANES
# also for splits of 128 tiles or more; run 240 measured it). All GPU tests under memcheck, then
# device-check.sh's new step: the dense and tile-by-tile tests with one split per unit
# (BLASST_DECODE_UNITS=1) under memcheck, so a split of 313 tiles over 16-key pages runs the new path.
source bench/runs/common.sh
LOG="$OUT/run241-steps.log"
precompile
MEMCHECK_TIMEOUT=280 memcheck
step "gpu tests, BLASST_DECODE_UNITS=1, memcheck"
BLASST_DECODE_UNITS=1 timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 --nocapture \
  dense_matches skip_decisions_match_the_cpu_tile > "$OUT/one-split.log" 2>&1
echo "one split exit $?" | tee -a "$LOG"
grep -E "ERROR SUMMARY|test result|panicked" "$OUT/one-split.log" | tail -3 | tee -a "$LOG"
grep -E "case 7 d" "$OUT/one-split.log" | tee -a "$LOG"
step end
