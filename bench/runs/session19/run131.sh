#!/usr/bin/env bash
# Run 131: the final tree (session 19: dense contiguous decode at d = 128 planned for one CTA per
# SM where that gives 2 or more than 4 splits). The device check without the test passes
# (check_prefill, demo, the benchmark, the head-dim-256 timings: the new current tables), then
# the GPU tests the plan change touches (dense vs CPU and float64, the calibration sweep, the
# CUDA-graph replay, skip-with-nothing-skipped bit identity, the occupancy check).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
SKIP_TESTS=1 SKIP_SANITIZER=1 scripts/device-check.sh > /dev/null 2>&1
tail -12 "$OUT/run.log"
timeout 190 target/device/gpu_tests --test-threads=1 --nocapture dense_matches calibration_sweep calls_replay \
  skip_kernel_that decode_plan_counts > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
grep -E "^test |test result|exit|panicked" "$OUT/gpu_tests.log" | tail -8
