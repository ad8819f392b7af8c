#!/usr/bin/env bash
# Run 327 (session 69): every GPU test of the tree (tests/gpu.rs, all head dims) with LATE_CHECK
# on by default, then check_prefill and check_paged_prefill. Run 325 tested LATE_CHECK only
# together with VOTE_AND (not kept); run 326 (the default kernels alone, d = 64 and 128) found no
# machine in session 68, so this run takes its place, wider.
set -uo pipefail
source bench/runs/common.sh
run_start
GPU_TESTS_TIMEOUT=420 gpu_tests
prefill_checks
pack_out logs
