#!/usr/bin/env bash
# Run 155 (session 23): the device check without the portable kernels' tests and without the
# benchmark (no kernel changed; the host path of every call did: call_ctx, validate_on), then
# where a call's host time goes (examples/host_cost.rs).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
SKIP_MMA_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh
echo "===== host_cost" | tee -a "$OUT/run.log"
timeout 120 target/device/host_cost >> "$OUT/run.log" 2>&1
echo "host_cost exit $?" >> "$OUT/run.log"
tail -6 "$OUT/run.log"
