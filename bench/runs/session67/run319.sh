#!/usr/bin/env bash
# Run 319 (session 67): after run 318 (PSMEM with K in two ring slots, V in three: dense 0.89-0.94x
# of the tree, Skip-Softmax 0.80-0.93x, at 87-92 % skipped 0.89-0.93x), whether skipped visits
# wait for K: the same kernel with K in three slots and V in two (`BLASST_PREFILL_PSMEM=k3`).
# Tile-by-tile decisions and skip-nothing bit identity with k3, then the A/B tree | PSMEM=1 |
# PSMEM=k3. Predicted: if K's latency binds the skipped visits, k3 at 87-92 % faster than the
# tree by +5..+20 %; dense slower than PSMEM=1 (V's copy a visit ahead only).
set -uo pipefail
source bench/runs/common.sh
run_start
export BLASST_TEST_HEAD_DIMS=128
BLASST_PREFILL_PSMEM=k3 GPU_TESTS_TIMEOUT=120 gpu_tests_named "PSMEM=k3, d = 128: skip nothing, tile by tile" \
  skip_kernel_that_skips_nothing skip_decisions_match_the_cpu_tile_by_tile
AB_BUILDS="target/device/libblasst.so $(switched_build psmem BLASST_PREFILL_PSMEM=1) $(switched_build psmemk3 BLASST_PREFILL_PSMEM=k3)" \
  AB_TIMEOUT=120 ab "contiguous (tree, PSMEM=1, PSMEM=k3)"
pack_out logs
