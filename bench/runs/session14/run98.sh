#!/usr/bin/env bash
# Run 98: the session's final kernels (prefill with the TMA producer warp; decode as session 13):
# the full device check - prefill check, the GPU tests with both kernel sets, memcheck, demo, the
# benchmark (the new current tables) and the head-dim-256 timings. The BLASST_PREFILL_TMA=0 tests
# ran on the same prefill kernel in runs 96 and 97 (skipped here for the 600 s limit).
SKIP_NO_TMA_TESTS=1 scripts/device-check.sh
