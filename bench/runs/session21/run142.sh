#!/usr/bin/env bash
# Run 142 (session 21): a kernel's first use inside a CUDA graph capture (global mode), with the
# library as committed (target/device-old/gpu_threads) and with a guard that set the thread's
# capture mode to relaxed around the module load (target/device: not kept, both passed); then all
# of gpu_threads and the graph test of gpu_tests.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
{
  echo "===== before the guard"
  timeout 120 target/device-old/gpu_threads --test-threads=1 --nocapture first_use 2>&1 | tail -20
  echo "old first_use exit ${PIPESTATUS[0]}"
  echo "===== after"
  timeout 200 target/device/gpu_threads --test-threads=1 --nocapture
  echo "gpu threads tests exit $?"
  timeout 120 target/device/gpu_tests --test-threads=1 --nocapture calls_replay host_pointers
  echo "gpu tests (graph, host pointers) exit $?"
} > "$OUT/run142.log" 2>&1
grep -E "exit|test result|panicked|first use|failed" "$OUT/run142.log"
