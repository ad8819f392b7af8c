#!/usr/bin/env bash
# Run 342 (session 75), on run 341's warm machine: parts of scripts/device-check.sh not yet run on
# build 0d6b389: the threads and contexts tests (last in run 297, session 57) and the prefill tests
# on the cp.async path (BLASST_PREFILL_TMA=0, d = 128; last in run 311, session 66); then both
# prefill checks against PyTorch and a float32 reference again (run 327 ran them on this build), and
# the demo on the GPU. Predicted: all pass (no host or kernel change since).
# (Ran at 23:56 UTC on an H100, 140 s: all passed; bench/RESULTS.md, "Session 75".)
set -uo pipefail
source bench/runs/common.sh
run_start
gpu_threads_contexts
GPU_TESTS_LOG=gpu-tests-no-tma.log GPU_TESTS_TIMEOUT=200 BLASST_PREFILL_TMA=0 BLASST_TEST_HEAD_DIMS=128 \
  gpu_tests_named "BLASST_PREFILL_TMA=0, d = 128" dense_matches skip_decisions_match_the_cpu_tile
prefill_checks
step "demo"
timeout 60 target/device/blasst demo > "$OUT/demo.log" 2>&1
echo "demo exit $?" | tee -a "$LOG"
grep -iE "device|backend|skipped" "$OUT/demo.log" | head -8 | tee -a "$LOG"
pack_out run342
