#!/usr/bin/env bash
# Run 216 (session 37): scripts/device-check.sh on c3dd425's build (carry target/device) without
# the portable-kernel, emulated and benchmark steps (run 218 and run 217): precompile,
# check_prefill, check_paged_prefill, the GPU tests (default head dims), gpu_threads,
# gpu_contexts, the no-TMA prefill tests, compute-sanitizer memcheck over all three binaries, demo.
SKIP_MMA_TESTS=1 SKIP_EMULATED_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh
