#!/usr/bin/env bash
# Run 140 (session 21), on two H200s of one host: the GPU tests with the pointer check that asks
# the driver once per pointer (cuPointerGetAttributes: memory type, managed, device ordinal), and
# tests/gpu_threads.rs with a thread per GPU and a pointer of GPU 1 passed to a call on GPU 0.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
nvidia-smi -L > "$OUT/run.log" 2>&1
{
  timeout 200 target/device/gpu_threads --test-threads=1 --nocapture
  echo "gpu threads tests exit $?"
} > "$OUT/gpu_threads.log" 2>&1
grep -E "exit|test result|refused|GPUs|panicked|skipped" "$OUT/gpu_threads.log"
{
  timeout 300 target/device/gpu_tests --test-threads=1 --nocapture
  echo "gpu tests exit $?"
} > "$OUT/gpu_tests.log" 2>&1
grep -E "^test |exit|test result" "$OUT/gpu_tests.log" | tail -14
