#!/usr/bin/env bash
# Run 141 (session 21): the device check without the benchmark, with the pointer check of
# f5b109a + the unknown-ordinal rule and gpu_threads' allocator test (cudaMalloc, the
# stream-ordered pool, managed memory, cuMemCreate + cuMemMap). No two-GPU machine was lent,
# so the test with a thread per GPU prints "skipped" here.
SKIP_MMA_TESTS=1 SKIP_NO_TMA_TESTS=1 SKIP_BENCH=1 \
  SANITIZE_FILTER="skip_decisions_match_the_cpu_tile calls_replay host_pointers" \
  bash scripts/device-check.sh
grep -E "accepted|skipped: |refused" "${OUT:-/tmp/blasst-out}/gpu_tests.log"
