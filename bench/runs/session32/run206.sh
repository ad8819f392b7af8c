#!/usr/bin/env bash
# Run 206 (session 32): all GPU tests (tests/gpu.rs) with the Hopper kernels after the tests'
# cases came to be built by Case::of (test code only), the padded head dims' kernels precompiled.
source bench/runs/common.sh
precompile
step "precompile padded head dims"
timeout 90 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
echo "precompile padded exit $?" | tee -a "$LOG"
gpu_tests
step done
