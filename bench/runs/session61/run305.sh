#!/usr/bin/env bash
# Run 305 (session 61): INT_MAXIMA in the Hopper prefill kernels (kernels/prefill_sm90.cu): an
# unmasked visit's row maxima as integer maxima of three scores at a time (VIMNMX3, one sm_90
# instruction: ~38 integer instructions per thread instead of 60 FMNMX), exact because between
# floats that are not negative and not NaN the integer order is the float order; a warp where
# some lane's 16 scores of a row and half are all negative (or hold a positive NaN) takes the
# float tree instead. Why: run 298 puts a skipped visit's time in its own warpgroup's chain from
# S to the next issue (~1000 cycles, row maxima ~415 of them), run 301 found ALU work at about
# half rate under a wgmma chain, and run 303 (SKIP_EARLY) that ~20 instructions more cost kept
# visits 1-2 %: the chain is bound by its instruction count. Session 12's ALU rates (run 80)
# had compared two-input maxima only (IMNMX, HMNMX2: no fewer issue cycles per fp32 maximum).
# Prediction: skipped visits ~1510 -> ~1420-1450 cycles (-4..-6 %), kept visits -1..-2 %:
# dense +0..+2 %, nothing skipped +0..+2 %, ~50 % +2..+3 %, ~70 % +3..+4 %, 87-92 % +4..+6 %;
# outputs, LSEs and skip counts the tree's bit for bit (tested).
# Builds: target/device-base = 6c4c9bd (the tree's kernels), target/device =
# scripts/build-device.sh with the change; carry both.
# 1. bench/micro/alu_rates.py (VIMNMX3's issue rate and latency; only where CuPy is installed);
# 2. check_prefill.py and check_paged_prefill.py with the change;
# 3. the interleaved A/B base | int maxima (bench/ab_prefill.py);
# 4. the GPU tests of Skip-Softmax prefill at every head dim, and the new
#    integer_row_maxima_match_the_float_tree_bit_for_bit (both forms in child processes, dense
#    and Skip-Softmax, the same bits, over all-negative, zero and mixed scores; with the switch off the d = 64 and 128 kernels' code is
#    the tree's, scripts/cubin-diff.py); racecheck over the tile-by-tile prefill case.
# SHORT=1 (a short budget, ~4 minutes): the A/B and the int-vs-float GPU test alone.
set -uo pipefail
source bench/runs/common.sh
run_start target/device-base
precompile
if [ "${SHORT:-0}" = 1 ]; then
  AB_TIMEOUT=200 ab "base | int maxima"
  echo "ab exit $?" | tee -a "$LOG"
  grep "speedup over own" "$OUT/ab.log" | tee -a "$LOG"
  gpu_tests_named "int vs float maxima" integer_row_maxima
  pack_out logs
  exit 0
fi
if python3 -c "import cupy" 2>/dev/null; then
  step "alu rates"
  timeout 60 python3 bench/micro/alu_rates.py > "$OUT/alu-rates.log" 2>&1
  grep -E "chains (8|1) warps/scheduler 2" "$OUT/alu-rates.log" | tee -a "$LOG"
else
  echo "alu rates: no CuPy here" | tee -a "$LOG"
fi
prefill_checks target/device "int maxima"
AB_TIMEOUT=200 ab "base | int maxima"
echo "ab exit $?" | tee -a "$LOG"
grep "speedup over own" "$OUT/ab.log" | tee -a "$LOG"
GPU_TESTS_TIMEOUT=300 gpu_tests_named "int maxima: skip, paged prefill, padded head dims, int vs float maxima" \
  skip_ paged_prefill padded_head_dims integer_row_maxima
racecheck_tile_case
pack_out logs
