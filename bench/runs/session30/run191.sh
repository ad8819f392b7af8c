#!/usr/bin/env bash
# Run 191 (session 30): paged prefill's block-table reads made before the boxes they feed (all
# pages of a visit's chunks read at once, then the boxes issued; four at a time with 32-register
# producers) against a88bf34 (target/device-base, which reads one page, issues its boxes, then
# reads the next). Timing-only diagnostic alongside at d = 128 16-key pages: target/device-notable
# never reads the table (page = logical page; wrong output), the ceiling of what the reads cost.
# Paged check, interleaved A/Bs, then the GPU tests and the no-TMA tests with the new build.
# (Rewritten after the run to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s, and every A/B has a label line in ab.log.)
source bench/runs/common.sh
precompile
paged_check || exit 1
AB_TIMEOUT=110 ab "d128 page 16 (with the no-table diagnostic)" target/device-notable/libblasst.so --page=16
ab "d128 page 64" --paged
ab "d256 page 16" --d256 --page=16
ab "d64 page 16" --d64 --page=16
gpu_tests
step "gpu tests, BLASST_PREFILL_TMA=0 (dense, tile-by-tile)"
BLASST_PREFILL_TMA=0 timeout 100 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/gpu-tests.log" 2>&1
echo "gpu tests (no TMA) exit $?" | tee -a "$LOG"; grep -E "test result" "$OUT/gpu-tests.log" | tail -1 | tee -a "$LOG"
step done
