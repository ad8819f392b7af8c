#!/usr/bin/env bash
# Run 146 (session 21): the cluster-occupancy cache keyed by (context ID, function handle,
# cluster size) instead of the kernel's name: the GPU tests that run decode with 2-4 splits
# merged inside clusters, the graph test, the plan test, and gpu_threads.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 300 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile calls_replay decode_plan 2>&1 | grep -E "^test |test result"
timeout 100 target/device/gpu_threads --test-threads=1 2>&1 | grep -E "^test |test result"
