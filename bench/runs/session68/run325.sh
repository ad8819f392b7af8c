#!/usr/bin/env bash
# Run 325 (session 68): INT_MAXIMA's check acted on after the quad shuffles (LATE_CHECK,
# `BLASST_PREFILL_LATE_CHECK=1`, kernels/prefill_sm90.cu). Run 324's profile put a skipped visit's
# row maxima at 276-412 cycles for ~55 instructions; in the tree's SASS the check (three dependent
# VIADDMNMX, ISETP, VOTE.ANY, the branch) sits between the integer maxima and the first shuffle,
# so the shuffles wait for the vote. With the switch the vote is PTX of its own after the shuffles
# (ptxas interleaves the check with the first shuffle round; the branch to the float tree follows
# the second). Same maxima bit for bit.
# Predicted: a skipped visit 20-40 cycles shorter (the check's latency, of ~1450): Skip-Softmax
# +1..+3 % at 75-92 % skipped, +0.5..+2 % at ~50 %, dense and nothing skipped 0..+1 %.
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_PREFILL_LATE_CHECK=1 GPU_TESTS_TIMEOUT=200 gpu_tests_named "LATE_CHECK=1 (d 64, 128, 256): integer maxima bit for bit, skip nothing, tile by tile" \
  integer_row_maxima skip_kernel_that_skips_nothing skip_decisions_match_the_cpu_tile_by_tile
LATE="target/device/libblasst.so $(switched_build late BLASST_PREFILL_LATE_CHECK=1)"
AB_BUILDS="$LATE" AB_TIMEOUT=120 ab "contiguous d = 128 (tree, LATE_CHECK=1)"
AB_BUILDS="$LATE" AB_TIMEOUT=120 ab "contiguous d = 128 again (tree, LATE_CHECK=1)"
AB_BUILDS="$LATE" AB_TIMEOUT=100 ab "contiguous d = 64 (tree, LATE_CHECK=1)" --d64
pack_out logs
