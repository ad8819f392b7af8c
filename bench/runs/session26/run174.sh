#!/usr/bin/env bash
# Run 174 (session 26): paged prefill's block-table reads in parallel (one lane of the team's first
# warp per page chunk, shuffled to thread 0) against bce3152 (thread 0 reads them in turn):
# correctness (paged check, prefill GPU tests), then A/B at 16-key pages (8 chunks per visit) for
# d = 64 and 128 and at 64-key pages for d = 128.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile >> "$LOG" 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "paged prefill check"
timeout 60 python3 bench/check_paged_prefill.py target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check exit $?" | tee -a "$LOG"; grep -E "^BAD|bad cases" "$OUT/check.log" | tail -3 | tee -a "$LOG"
step "gpu tests (dense, tile by tile)"
timeout 150 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/gpu-tests.log" | head -3 | tee -a "$LOG"
[ $rc = 0 ] || exit 1
step "ab d64 page 16"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --page=16 > "$OUT/ab.log" 2>&1
step "ab d128 page 16"
echo "===== d128 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 70 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --page=16 >> "$OUT/ab.log" 2>&1
step "ab d128 page 64"
echo "===== d128 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 70 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --paged >> "$OUT/ab.log" 2>&1
step done
