#!/usr/bin/env bash
# Run 206 (session 32): compute-sanitizer memcheck over all GPU tests (tests/gpu.rs, with the
# padded-head-dim test), through scripts/device-check.sh (no tests, benchmark or threads binary).
SKIP_TESTS=1 SKIP_BENCH=1 SKIP_THREADS_SANITIZER=1 OUT=$OUT bash scripts/device-check.sh
