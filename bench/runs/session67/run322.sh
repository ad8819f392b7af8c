#!/usr/bin/env bash
# Run 322 (prepared in session 67, when no device time was left; run in session 68 through
# bench/runs/session68/run322.sh, logs and verdict under "Session 68" in bench/RESULTS.md). Whether PSMEM's skipped
# visits wait in their own S issue. Session 58's profile had a skipped visit's 8-wgmma S issue at
# ~500 cycles (a wgmma's issue waits until the tensor cores take it, and they are busy with the
# other warpgroup's S), so with S a visit ahead (PSMEM, runs 316-321) the warps still spend that
# time issuing before their row maxima: the chain the second buffer was to overlap runs after the
# issue instead. `BLASST_PREFILL_PSMEM=i` (K two slots) and `=k3i` (K three) compute the lane's
# unmasked row maxima between S_{t+1}'s k-steps (ptxas places them after the first k-step).
# Setup, on the build machine: `git apply bench/runs/session67/psmem-rejected.patch` (run 321's
# PSMEM kernel), then `git apply bench/runs/session67/psmem-interleave-prepared.patch` (the
# interleave on top of it; default kernels unchanged),
# `bash scripts/build-device.sh`, carry target/device; afterwards `git checkout
# kernels/prefill_sm90.cu src/cuda/nvrtc.rs`. ~150 s.
# Predicted: if the issue wait is what held run 319/321's skipped visits, `i` at 87-92 % skipped
# faster than PSMEM=1 by +10..+25 % (and than the tree); dense as PSMEM=1 (0.87-0.93x of the tree,
# whose loss is P's shared-memory traffic, if session 67's reading holds).
set -uo pipefail
source bench/runs/common.sh
run_start
export BLASST_TEST_HEAD_DIMS=128
BLASST_PREFILL_PSMEM=i GPU_TESTS_TIMEOUT=100 gpu_tests_named "PSMEM=i, d = 128: skip nothing, tile by tile" \
  skip_kernel_that_skips_nothing skip_decisions_match_the_cpu_tile_by_tile
AB_BUILDS="target/device/libblasst.so $(switched_build psmem BLASST_PREFILL_PSMEM=1) $(switched_build psmemi BLASST_PREFILL_PSMEM=i) $(switched_build psmemk3i BLASST_PREFILL_PSMEM=k3i)" \
  AB_TIMEOUT=150 ab "contiguous (tree, PSMEM=1, PSMEM=i, PSMEM=k3i)"
pack_out logs
