#!/usr/bin/env bash
# Run 189 (session 29): run 188's two producer warpgroups for paged prefill at d >= 128 with the
# team's arrivals on a visit's full barrier made in one (thread 0's arrive.expect_tx and thread 32's
# arrive of count PTEAM - 1) instead of one per thread (128 per visit, run 188's build, kept as
# target/device-v1): against 8914484 (target/device-base). Paged check, interleaved A/Bs (d = 128
# 16-key pages; 64-key pages with run 188's build too; d = 256 16-key pages), the GPU tests, and
# memcheck over the dense and paged-prefill tests.
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
AB="python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so"
step "ab d128 page 16"
PYTHONUNBUFFERED=1 timeout 70 $AB --page=16 > "$OUT/ab.log" 2>&1
step "ab d128 page 64 (and run 188's build)"
echo "===== d128 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 90 $AB target/device-v1/libblasst.so --paged >> "$OUT/ab.log" 2>&1
step "ab d256 page 16"
echo "===== d256 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 60 $AB --d256 --page=16 >> "$OUT/ab.log" 2>&1
step "gpu tests (all)"
timeout 150 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "memcheck (dense, paged prefill without num_pages)"
timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches paged_prefill_without > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
