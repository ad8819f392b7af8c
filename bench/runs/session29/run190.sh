#!/usr/bin/env bash
# Run 190 (session 29): the build to keep: two producer warpgroups for paged prefill at d = 256
# only (d = 64 and d = 128 compile to 8914484's code: their SASS differs only in the producer-role
# test, `wg >= NWG` for `wg == NWG`). The paged check (now also at d = 256: pages of 16, 64 and 256
# keys, num_pages given and 0), interleaved A/Bs against 8914484 at d = 256 with 64-key pages (not
# measured in runs 188-189) and 16-key pages, the GPU tests, memcheck over the dense and
# paged-prefill tests.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile > /dev/null 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "paged prefill check"
timeout 90 python3 bench/check_paged_prefill.py target/device/libblasst.so > "$OUT/check.log" 2>&1
rc=$?; echo "check exit $rc" | tee -a "$LOG"; grep -E "^BAD|bad cases|num_pages given" "$OUT/check.log" | tail -4 | tee -a "$LOG"
AB="python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so"
step "ab d256 page 64"
PYTHONUNBUFFERED=1 timeout 70 $AB --d256 --paged > "$OUT/ab.log" 2>&1
step "ab d256 page 16"
echo "===== d256 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 70 $AB --d256 --page=16 >> "$OUT/ab.log" 2>&1
step "gpu tests (all)"
timeout 150 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "memcheck (dense, paged prefill without num_pages)"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches paged_prefill_without > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
