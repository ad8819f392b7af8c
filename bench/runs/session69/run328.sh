#!/usr/bin/env bash
# Run 328 (session 69): 192-key visits (`BLASST_PREFILL_VISIT192=1`, off by default; the
# default cubins unchanged; not kept: the switch is in visit192-rejected.patch here, which applies
# to the tree (checked at 07b717b) and which the build run 328 timed, 97efd29, holds): the
# d = 128 Hopper prefill kernels over contiguous caches take three plan tiles a visit (S 64 x 192
# per warpgroup, one m64n192k16 chain) in a ring of two 96 KB slots.
# Run 324's profile: a skipped visit is ~1450 cycles against its 1024 tensor-core cycles, of which
# ~940 per warpgroup are its own chain after its S (turn, waits, row maxima, votes); the turn and
# the waits are per visit, so 192 keys share them.
# Predicted (H100): a skipped visit's cost per key -8..-12 %: Skip-Softmax +6..+10 % at 87-92 %
# skipped, +3..+6 % at ~50-70 %; dense -3..+3 % (ring of two slots instead of three, one
# barrier pair per slot); so the ~50 % ratio +0.02..+0.06.
# First the GPU tests of the switched kernels at d = 128 (dense against the CPU and float64, the
# tile-by-tile decisions, lambda > 1, skip-nothing bit-identity, the integer maxima), then the A/B.
set -uo pipefail
source bench/runs/common.sh
run_start
BLASST_PREFILL_VISIT192=1 BLASST_TEST_HEAD_DIMS=128 GPU_TESTS_TIMEOUT=200 GPU_TESTS_LOG=gpu-tests-visit192.log gpu_tests_named \
  "VISIT192=1, d 128: dense vs CPU and float64, tile by tile, lambda > 1, skip nothing, integer maxima" \
  dense_matches_cpu skip_decisions_match_the_cpu skip_kernel_that_skips_nothing integer_row_maxima
# (third build, timed only: 192-key visits with split K and V barriers, so that K of the next
# visit is copied as soon as S is done with its slot: the ring has two slots only)
B="target/device/libblasst.so $(switched_build v192 BLASST_PREFILL_VISIT192=1)"
B="$B $(switched_build v192s BLASST_PREFILL_VISIT192=1,BLASST_PREFILL_OVERLAP_SPLIT=1)"
AB_BUILDS="$B" AB_TIMEOUT=170 ab "contiguous d = 128 (tree, VISIT192, VISIT192 + OVERLAP_SPLIT)"
AB_BUILDS="$B" AB_TIMEOUT=150 ab "contiguous d = 128 non-causal 4K-32K (the same three)" --noncausal
step "check_prefill, VISIT192=1"
BLASST_PREFILL_VISIT192=1 timeout 100 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check-visit192.log" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches" "$OUT/check-visit192.log" | head -6 | tee -a "$LOG"
pack_out logs
