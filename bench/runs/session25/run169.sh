#!/usr/bin/env bash
# Run 169 (session 25): the device check of 3d1f7f7 (three consumer warpgroups at d = 64):
# GPU tests, threads, contexts, the prefill tests without TMA (the producer warp's cp.async
# copies of a 192-row Q), memcheck over all three test binaries, demo. No benchmark (the d = 128
# kernels' code is unchanged; run 167 timed d = 64).
SKIP_MMA_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh
