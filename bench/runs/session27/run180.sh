#!/usr/bin/env bash
# Run 180 (session 27): the GPU tests with the portable kernels (BLASST_PREFILL_KERNEL=mma
# BLASST_DECODE_KERNEL=mma) on e86198b's build - last run in session 24 (run 165), before
# sessions 26-27 changed the tensor-map host code and added paged_prefill_without_num_pages_matches_with -
# then the same under compute-sanitizer memcheck.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$L"; }
step precompile
timeout 120 target/device/blasst precompile > /dev/null 2>&1; echo "precompile exit $?" | tee -a "$L"
step "gpu tests (mma)"
BLASST_LOG=debug BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 200 target/device/gpu_tests --test-threads=1 \
  > "$OUT/gpu-tests-mma.log" 2>&1; echo "gpu_tests (mma) exit $?" | tee -a "$L"
grep -E "test result|panicked" "$OUT/gpu-tests-mma.log" | head -3 | tee -a "$L"
# Which kernels the mma pass loaded (it must be the portable ones).
grep -oE "blasst_fwd_[a-z0-9_]+" "$OUT/gpu-tests-mma.log" | sed -E 's/_(f16|bf16)_d[0-9]+.*//' | sort | uniq -c | tee -a "$L"
step "memcheck (mma)"
BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 220 compute-sanitizer --tool memcheck --error-exitcode 9 \
  target/device/gpu_tests --test-threads=1 > "$OUT/memcheck-mma.log" 2>&1
echo "memcheck (mma) exit $?" | tee -a "$L"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck-mma.log" | tail -3 | tee -a "$L"
step done
