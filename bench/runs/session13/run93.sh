#!/usr/bin/env bash
# Run 93: the session's final build: prefill check, GPU tests (default kernels; the portable set
# passed in run 91 and its paths did not change since), memcheck, demo, the benchmark (now with
# the speculative-decoding table) and the head-dim-256 timings.
SKIP_MMA_TESTS=1 BENCH_TIMEOUT=330 scripts/device-check.sh
