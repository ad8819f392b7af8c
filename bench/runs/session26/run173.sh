#!/usr/bin/env bash
# Run 173 (session 26): the paged-prefill TMA patch of session 25 (run171 patch) applied to 997f2b6:
# precompile, paged check against float32, all GPU tests, A/B of paged prefill (d = 64 and 128)
# against 997f2b6 (target/device-base), then memcheck over the prefill tests (paged cases included).
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile >> "$LOG" 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "paged prefill check"
timeout 60 python3 bench/check_paged_prefill.py target/device/libblasst.so > "$OUT/check.log" 2>&1
echo "check exit $?" | tee -a "$LOG"; grep -E "^BAD|bad cases" "$OUT/check.log" | tail -3 | tee -a "$LOG"
step "gpu tests"
timeout 240 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/gpu-tests.log" | head -3 | tee -a "$LOG"
[ $rc = 0 ] || exit 1
step "ab paged d64"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --paged > "$OUT/ab-paged.log" 2>&1
step "ab paged d128"
PYTHONUNBUFFERED=1 timeout 70 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --paged >> "$OUT/ab-paged.log" 2>&1
step "memcheck prefill tests"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
  dense_matches skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
