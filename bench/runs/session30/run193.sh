#!/usr/bin/env bash
# Run 193 (session 30): the page reads at once only where run 192 gained: d = 128 with pages under
# 64 keys (a runtime branch in the d = 128 paged kernels; 64-key and larger pages take a88bf34's
# loop, and the d = 64 and d = 256 cubins are a88bf34's, SASS compared with cuobjdump). Against
# a88bf34 (target/device-base): the paged check (now also 32-key pages), interleaved A/Bs at
# d = 128 with 16-, 32-, 64- and 256-key pages, the GPU tests, memcheck over the paged-prefill test.
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
for pg in 16 64 32 256; do
  step "ab d128 page $pg"
  echo "===== d128 page $pg" >> "$OUT/ab.log"
  PYTHONUNBUFFERED=1 timeout 60 $AB --page=$pg >> "$OUT/ab.log" 2>&1
done
step "gpu tests (all)"
timeout 150 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "memcheck (paged prefill without num_pages)"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 paged_prefill_without > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
