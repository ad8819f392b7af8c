#!/usr/bin/env bash
# Run 139 (session 21): the threads / device-reset tests against the tree before this session's
# change (target/device-old/gpu_threads: the loaded-kernel cache keyed by context handle, one lock
# around compiles) and after it, then the device check without the benchmark.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
{
  echo "===== before (HEAD 073239c's library, this session's tests)"
  for t in threads_calling calls_after_a_device_reset; do
    timeout 150 target/device-old/gpu_threads --test-threads=1 --nocapture "$t" 2>&1 | tail -25
    echo "old $t exit ${PIPESTATUS[0]}"
  done
} > "$OUT/old.log" 2>&1
grep -E "exit|test result|panicked" "$OUT/old.log"
SKIP_MMA_TESTS=1 SKIP_NO_TMA_TESTS=1 SKIP_BENCH=1 \
  SANITIZE_FILTER="skip_decisions_match_the_cpu_tile calls_replay host_pointers" \
  bash scripts/device-check.sh
