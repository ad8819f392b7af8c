#!/usr/bin/env bash
# Run 325 (session 68): two latency cuts in a skipped prefill visit's chain, each behind its own
# switch (kernels/prefill_sm90.cu; both off by default, the default cubins unchanged). Run 324's
# profile put a skipped visit's row maxima at 276-412 cycles for ~55 instructions and its votes at
# ~135, at 6-9 cycles an instruction: latency, not issue.
# * LATE_CHECK (`BLASST_PREFILL_LATE_CHECK=1`): INT_MAXIMA's check for lanes whose integer
#   maxima are not their float maxima (three dependent VIADDMNMX, ISETP, VOTE.ANY, the branch)
#   sat between the integer maxima and the first quad shuffle, so the shuffles waited for its vote;
#   now the vote is PTX of its own after the shuffles (ptxas interleaves the check with the first
#   shuffle round; the branch to the float tree follows the second). Same maxima bit for bit.
# * VOTE_AND (`BLASST_PREFILL_VOTE_AND=1`): a warp's vote on a plan tile tested its lane's two rows
#   with `&&`, which ptxas made a predicated chain (the second row's test waiting for the first's,
#   ~9 dependent instructions before the vote); with `&` the four row tests of a visit run side by
#   side (~6 before the vote). Same decisions.
# Predicted: each cuts a skipped visit by 20-40 cycles (of ~1450) and a kept one by as much, so
# each gives Skip-Softmax +1..+3 % at 75-92 % skipped and +0.5..+2 % at ~50 %; both together
# +2..+5 % and +1..+3 %; dense (LATE_CHECK only: VOTE_AND changes only the skip kernels) 0..+1 %.
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_PREFILL_LATE_CHECK=1 BLASST_PREFILL_VOTE_AND=1 GPU_TESTS_TIMEOUT=240 gpu_tests_named \
  "LATE_CHECK=1 VOTE_AND=1 (d 64, 128, 256): integer maxima bit for bit, skip nothing, tile by tile, lambda > 1" \
  integer_row_maxima skip_kernel_that_skips_nothing skip_decisions_match_the_cpu
B="target/device/libblasst.so $(switched_build late BLASST_PREFILL_LATE_CHECK=1) $(switched_build and BLASST_PREFILL_VOTE_AND=1)"
B="$B $(switched_build both BLASST_PREFILL_LATE_CHECK=1,BLASST_PREFILL_VOTE_AND=1)"
AB_BUILDS="$B" AB_TIMEOUT=150 ab "contiguous d = 128 (tree, LATE_CHECK, VOTE_AND, both)"
AB_BUILDS="$B" AB_TIMEOUT=120 ab "contiguous d = 64" --d64
pack_out logs
