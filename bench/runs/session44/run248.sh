#!/usr/bin/env bash
# Run 248 (session 44): the final tree's GPU tests in one run (runs 246 and 247 had run them in
# two parts: 9 + 5), then gpu_threads and gpu_contexts.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
GPU_TESTS_TIMEOUT=380 gpu_tests  # (common.sh since the session's review: the same commands)
gpu_threads_contexts  # (common.sh since session 48: the same commands)
