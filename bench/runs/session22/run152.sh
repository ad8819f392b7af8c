#!/usr/bin/env bash
# Run 152 (session 22, review): check_with in launch and the per-call workspace allocation
# (the messages made only on failure): the GPU tests that launch every path (prefill, decode
# with 1, 2-4 and 19 splits and no workspace passed, graph capture), after a precompile.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 120 target/device/blasst precompile | tail -1 | tee "$OUT/run.log"
timeout 240 target/device/gpu_tests --test-threads=1 output_may_overwrite calls_replay more_sequences \
  2>&1 | grep -E "^test |test result" | tee -a "$OUT/run.log"
