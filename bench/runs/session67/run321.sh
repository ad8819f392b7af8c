#!/usr/bin/env bash
# Run 321 (session 67): the PSMEM patch (bench/runs/session67/psmem-rejected.patch, applied to the
# tree for this run only) with one change: the Skip-Softmax consumers wait for V of visit t - 1 only
# when some warp kept a half of it (after the turn's vote read), and release an unread V without
# waiting; the producer waits for a slot's previous copy to land before reusing it. So a skipped
# visit waits for K alone, and with `BLASST_PREFILL_PSMEM=k3` K has three slots (V two).
# Predicted: if the copies' latency is what kept run 319's skipped visits at the tree's pace, k3
# at 87-92 % skipped faster than the tree by +5..+20 %; if not, as run 319 (0.88-0.95x).
set -uo pipefail
source bench/runs/common.sh
run_start
export BLASST_TEST_HEAD_DIMS=128
BLASST_PREFILL_PSMEM=k3 GPU_TESTS_TIMEOUT=100 gpu_tests_named "PSMEM=k3, d = 128: skip nothing, tile by tile" \
  skip_kernel_that_skips_nothing skip_decisions_match_the_cpu_tile_by_tile
AB_BUILDS="target/device/libblasst.so $(switched_build psmem BLASST_PREFILL_PSMEM=1) $(switched_build psmemk3 BLASST_PREFILL_PSMEM=k3)" \
  AB_TIMEOUT=110 ab "contiguous (tree, PSMEM=1, PSMEM=k3; V waited only when kept)"
BLASST_PREFILL_PSMEM=k3 SANITIZE_TIMEOUT=60 sanitize_tile_cases racecheck 0,2
pack_out logs
