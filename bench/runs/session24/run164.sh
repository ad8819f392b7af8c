#!/usr/bin/env bash
# Run 164 (session 24): blasst_attn_workspace_size with no context current sizes for the
# largest any GPU needs (cuda::all_gpu_shapes): the context tests (a fresh thread's size equals
# device 0's on this one-GPU machine, and leaves the thread without a context), memcheck over
# that test, and the GPU tests and gpu_threads again (their decode calls size workspaces with a
# context current: unchanged path).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run164.log"
timeout 180 target/device/blasst precompile > "$L" 2>&1; echo "precompile exit $?" >> "$L"
timeout 100 target/device/gpu_contexts --test-threads=1 --nocapture >> "$L" 2>&1; echo "gpu_contexts exit $?" >> "$L"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_contexts --test-threads=1 \
  a_thread_without_a_current_context >> "$L" 2>&1; echo "memcheck contexts exit $?" >> "$L"
timeout 300 target/device/gpu_tests --test-threads=1 > "$OUT/run164-gpu-tests.log" 2>&1; echo "gpu_tests exit $?" >> "$L"
timeout 200 target/device/gpu_threads --test-threads=1 >> "$OUT/run164-gpu-tests.log" 2>&1; echo "gpu_threads exit $?" >> "$L"
grep -E "test result" "$OUT/run164-gpu-tests.log" >> "$L"
grep -E "^test |test result|exit|workspace|ERROR SUMMARY|skipped" "$L"
