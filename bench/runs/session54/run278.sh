#!/usr/bin/env bash
# Run 278 (session 54, either card): after run 277 (decode on 32-key tiles at d = 256 under the
# 100 KB emulation: all GPU tests pass at 64/128/256, memcheck 0 errors, but the dense test's
# split coverage failed when d = 256 ran alone: no call took one split), tests/gpu.rs gained a
# short-cache decode case (2 x 1 token, 300/77 keys, 32-key pages) that takes one split on
# every GPU. Here:
# 1. memcheck over the dense and tile-by-tile tests at d = 256 under the 100 KB emulation
#    (the coverage check must now pass);
# 2. all GPU tests on the GPU's own kernels (the patch moved the plan's decode block_n to
#    cuda::decode_block_n and added the launch's block_n check: the Hopper path must stand).
set -uo pipefail
source bench/runs/common.sh
run_start
emulated_memcheck 102400 256 170
GPU_TESTS_TIMEOUT=$((580 - SECONDS)) gpu_tests
