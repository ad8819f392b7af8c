#!/usr/bin/env bash
# Run 147 (session 22): the device check of this session's tree without the portable kernels'
# tests (their kernels did not change). Session 22 changed the host side only: the CPU backend
# computes row tiles in groups (results bit-identical; the GPU tests compare against it), CUDA
# launches make no string unless they fail, the NVRTC target string is made once per device;
# new GPU test output_may_overwrite_the_queries (o = q in place, promised by the header).
# Build first: scripts/build-device.sh; carry target/device.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
SKIP_MMA_TESTS=1 BENCH_TIMEOUT=300 bash scripts/device-check.sh
grep -E "^===|exit|ERROR SUMMARY" "$OUT/run.log" | tail -30
