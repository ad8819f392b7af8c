#!/usr/bin/env bash
# Run 170 (session 25): paged prefill at d = 64 with three consumer warpgroups too (the paged
# producer teams at 32 registers, their copy loop unrolled 4 times instead of 16, the consumers
# at 160): interleaved A/B of paged calls (bench/ab_prefill.py --d64 --paged) against 3d1f7f7
# (target/device-base: paged d = 64 with two), the GPU tests that run paged prefill (dense and
# tile by tile), and memcheck over them.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile >> "$LOG" 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "ab d64 paged"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --paged > "$OUT/ab-d64-paged.log" 2>&1
echo "ab exit $?" | tee -a "$OUT/ab-d64-paged.log" "$LOG"
step "gpu tests (dense, tile by tile)"
timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$OUT/gpu-tests.log" "$LOG"
grep "test result" "$OUT/gpu-tests.log" | tee -a "$LOG"
step memcheck
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$OUT/memcheck.log" "$LOG"
grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tee -a "$LOG"
step done
