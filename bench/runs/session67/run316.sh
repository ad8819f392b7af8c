#!/usr/bin/env bash
# Run 316 (session 67): PSMEM, S a visit ahead with P through shared memory
# (`BLASST_PREFILL_PSMEM=1`; kernels/prefill_sm90.cu; d = 128, contiguous and ragged layouts,
# dense and Skip-Softmax), against the tree's kernels (the same build without the switch).
# (1) Correctness with the switch, d = 128: skip nothing bit for bit against dense, dense against
# the CPU and float64, the tile-by-tile decisions; check_prefill.py (against PyTorch).
# (2) The interleaved A/B, contiguous (8K non-causal and causal, 16K non-causal, 32K causal).
# (3) racecheck and synccheck over the contiguous prefill cases of the tile-by-tile test.
# Predicted: (1) pass; (2) skipping faster, most at high sparsity: 87-92 % +15..+25 %, 65-70 %
# +8..+15 %, ~50 % +3..+8 %; dense and nothing skipped -5..+5 % (a kept visit's softmax now runs
# beside its next S, but P goes through shared memory and the ring has two slots, not three);
# (3) 0 hazards, 0 errors.
set -uo pipefail
source bench/runs/common.sh
run_start
export BLASST_TEST_HEAD_DIMS=128
BLASST_PREFILL_PSMEM=1 GPU_TESTS_TIMEOUT=150 gpu_tests_named "PSMEM, d = 128: skip nothing, dense, tile by tile" \
  skip_kernel_that_skips_nothing dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile
BLASST_PREFILL_PSMEM=1 prefill_checks target/device "PSMEM"
AB_BUILDS="target/device/libblasst.so $(switched_build psmem BLASST_PREFILL_PSMEM=1)" AB_TIMEOUT=90 \
  ab "contiguous (tree, PSMEM)"
for tool in racecheck synccheck; do
  BLASST_PREFILL_PSMEM=1 SANITIZE_TIMEOUT=100 sanitize_tile_cases $tool 0,1,2,4
done
pack_out logs
