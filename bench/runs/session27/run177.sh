#!/usr/bin/env bash
# Run 177 (session 27): paged prefill's TMA boxes from two threads of a team (thread 0 K's,
# thread 32 V's, through one helper: no spills) against 252be86 (thread 0 both): the paged check,
# interleaved A/B at 16- and 64-key pages (d = 128, d = 64), then all GPU tests with the patch
# (first run of paged_prefill_without_num_pages_matches_with) and memcheck of the prefill tests.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile > /dev/null 2>&1; echo "precompile exit $?" | tee -a "$LOG"
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
step "ab d64 page 64"
echo "===== d64 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 45 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --paged >> "$OUT/ab.log" 2>&1
step "gpu tests (all)"
timeout 200 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "memcheck (dense, paged without num_pages)"
timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches paged_prefill_without > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
