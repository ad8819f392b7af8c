#!/usr/bin/env bash
# Run 171 (session 25): TMA copies for paged prefill (boxes of min(page size, 64) rows from tensor
# maps over the page pool, each box's page looked up in the block table): the GPU tests (paged
# prefill with 16- and 256-key pages among them), memcheck over the dense and tile-by-tile tests,
# then interleaved A/Bs of paged calls at d = 64 and d = 128 against 7af1dcb (target/device-base:
# paged prefill on cp.async).
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile >> "$LOG" 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "gpu tests"
timeout 170 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?
echo "gpu tests exit $rc" | tee -a "$OUT/gpu-tests.log" "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
[ $rc = 0 ] || exit 1
step memcheck
timeout 130 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$OUT/memcheck.log" "$LOG"
grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tee -a "$LOG"
step "ab paged d64"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --paged > "$OUT/ab-paged.log" 2>&1
step "ab paged d128"
PYTHONUNBUFFERED=1 timeout 70 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --paged >> "$OUT/ab-paged.log" 2>&1
echo "ab exit $?" | tee -a "$OUT/ab-paged.log" "$LOG"
step done
