#!/usr/bin/env bash
# Run 257 (session 48): the tree with the warps decode kernel's V-slot fix, every GPU test at
# d = 128 under memcheck (the warps kernel's skip build, contiguous and paged, never passed
# memcheck before: runs 253-255 hung in it), then gpu_threads and gpu_contexts.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=430 memcheck
step "gpu_threads, gpu_contexts"
timeout 40 target/device/gpu_threads --test-threads=1 > "$OUT/gpu-threads.log" 2>&1
echo "gpu threads exit $?" | tee -a "$LOG"
timeout 20 target/device/gpu_contexts --test-threads=1 >> "$OUT/gpu-threads.log" 2>&1
echo "gpu contexts exit $?" | tee -a "$LOG"
grep -E "test result" "$OUT/gpu-threads.log" | tee -a "$LOG"
