#!/usr/bin/env bash
# Run 248 (session 44): the final tree's GPU tests in one run (runs 246 and 247 had run them in
# two parts: 9 + 5), then gpu_threads and gpu_contexts.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
GPU_TESTS_TIMEOUT=380 gpu_tests  # (common.sh since the session's review: the same commands)
step "gpu_threads, gpu_contexts"
timeout 40 target/device/gpu_threads --test-threads=1 > "$OUT/gpu-threads.log" 2>&1
echo "gpu threads exit $?" | tee -a "$LOG"
timeout 20 target/device/gpu_contexts --test-threads=1 >> "$OUT/gpu-threads.log" 2>&1
echo "gpu contexts exit $?" | tee -a "$LOG"
grep -E "test result" "$OUT/gpu-threads.log" | tee -a "$LOG"
