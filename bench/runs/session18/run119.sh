#!/usr/bin/env bash
# Run 119: the device check of the final tree (session 17's kernels, unchanged: the persistent
# prefill of runs 116-118 was not kept) with this session's added GPU test cases (more CTAs than
# multiprocessors, Lq > Lk causal ragged, a 192-CTA prefill in a CUDA graph, a 192-CTA sweep),
# with both kernel sets and without TMA; memcheck on the tests that gained cases; no benchmark
# (the kernels are run 113's).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
SKIP_BENCH=1 SANITIZE_FILTER="dense_matches skip_decisions_match_the_cpu_tile skip_kernel_that calibration_sweep calls_replay" \
  scripts/device-check.sh > /dev/null 2>&1
tail -14 "${OUT:-/tmp/blasst-out}/run.log"
