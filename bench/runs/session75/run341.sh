#!/usr/bin/env bash
# Run 341 (session 75), in two calls: `run341.sh 1`, then `run341.sh 2` on the same warm machine.
# On an H200 (none has run today's kernels; the last H200 tables are run 283's, session 54, before
# the P V overlap):
#   1: the bf16 tables (issue 5's and 6's rows), predicted within 0.05 of run 329's H100 ratios
#      (nothing skipped 0.96-1.05x, ~50 % 1.14-1.26x, ~70 % 1.31-1.45x), dense 3-8 % below run
#      329's 456-643 TFLOP/s at the H200's power cap, decode 0.98-1.02x SDPA;
#   2: compute-sanitizer memcheck over all 16 GPU tests (every head dim, layout, mask; tile by
#      tile against the CPU; skip nothing bit for bit), predicted 16 passed, 0 errors (run 331's
#      result on an H100).
# On any other card, the GPU tests under the two emulated GPUs (an A100's 164 KB and a GPU of
# 100 KB of shared memory per SM, portable kernels), whose whole suite last ran in run 289
# (session 55, A100) and run 274 (session 53, 100 KB), before the integer maxima (session 61)
# and 0d6b389's shared two-row vote:
#   1: the A100 emulation; 2: the 100 KB one. Predicted: every test passes in both.
# (Ran at 23:44 and 23:50 UTC on an H100, the other-card branch: 15 of 15 passed in both;
# bench/RESULTS.md, "Session 75".)
set -uo pipefail
source bench/runs/common.sh
part=${1:-1}
run_start
if gpu_is H200; then
  h200_part "$part" run341
else
  timeout 60 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
  if [ "$part" = 1 ]; then
    EMULATED_TIMEOUT=${EMULATED_TIMEOUT:-480} emulated_gpu_tests 167936 64,128,256 a100 40,96,160
  else
    EMULATED_TIMEOUT=${EMULATED_TIMEOUT:-480} emulated_gpu_tests 102400 64,128,256 smem100k 40,96,160
  fi
  pack_out run341-emulated-$part
fi
