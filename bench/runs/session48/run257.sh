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
gpu_threads_contexts
