#!/usr/bin/env bash
# Run 176 (session 26): paged prefill's TMA boxes issued by two threads of a team (thread 0 K's,
# thread 32 V's) against 5417010 (thread 0 both): the paged check, A/B at 16- and 64-key pages,
# then the prefill GPU tests and their memcheck.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile >> "$LOG" 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "paged prefill check"
timeout 90 python3 bench/check_paged_prefill.py target/device/libblasst.so > "$OUT/check.log" 2>&1
rc=$?; echo "check exit $rc" | tee -a "$LOG"; grep -E "^BAD|bad cases|num_pages given" "$OUT/check.log" | tail -4 | tee -a "$LOG"
[ $rc = 0 ] || exit 1
step "ab d128 page 16"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --page=16 > "$OUT/ab.log" 2>&1
step "ab d64 page 16"
echo "===== d64 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 45 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --page=16 >> "$OUT/ab.log" 2>&1
step "ab d128 page 64"
echo "===== d128 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 50 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --paged >> "$OUT/ab.log" 2>&1
step "gpu tests (dense, tile by tile)"
timeout 110 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked" "$OUT/gpu-tests.log" | head -3 | tee -a "$LOG"
step "memcheck (dense)"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
