#!/usr/bin/env bash
# Run 182 (session 28): run 181's build under compute-sanitizer memcheck (all GPU tests,
# gpu_threads, the contexts test), after the precompile and the two prefill checks that
# device-check.sh always runs.
SKIP_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh
echo "=== done ($(date +%T))" | tee -a "$OUT/run.log"
