#!/usr/bin/env bash
# Run 101: K/V multicast in clusters of two prefill CTAs (non-causal, TMA): prefill check, the
# GPU tests, an interleaved A/B against session 14's final build (device-base, 78d896f),
# memcheck over the dense and tile-by-tile tests.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/smi.log" 2>&1
echo "=== check_prefill" | tee -a "$L"
timeout 90 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check_prefill.log" 2>&1; rc=$?; echo "check_prefill exit $rc" | tee -a "$L"
grep -E "^BAD|mismatches" "$OUT/check_prefill.log" | head -5
[ "$rc" = 0 ] || { tail -30 "$OUT/check_prefill.log"; exit 1; }
echo "=== gpu tests" | tee -a "$L"
timeout 240 target/device/gpu_tests --test-threads=1 > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$L"
grep -E "^test |test result" "$OUT/gpu_tests.log" | tail -11
echo "=== A/B" | tee -a "$L"
timeout 100 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --noncausal > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"; cat "$OUT/ab.log"
echo "=== memcheck (dense and tile-by-tile tests)" | tee -a "$L"
timeout 150 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$L"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -2
