#!/usr/bin/env bash
# Run 293 (prepared in session 55, not run: no device time was left). What BLASST_PREFILL_PV_OVERLAP
# (off by default; bench/RESULTS.md, session 55, runs 291-292) needs before it can be turned on,
# in one call (~450 s on an H100):
#  1. every GPU test with the switch on (its d = 128 Hopper prefill kernels);
#  2. memcheck over the prefill tests and racecheck over the tile-by-tile prefill case, switch on;
#  3. an interleaved A/B of the tree (target/device-base, switch off and on) against the tree with
#     prepared-pv-overlap-early-release.patch (target/device, switch on): a skip visit after one
#     that no warp kept releases the previous slot at its issue instead of after its row maxima and
#     votes. Prediction: the 87-92 % rows' -1.5..-4.6 % of run 292 back to within +-1 % of the
#     switch off, the rest as run 292.
# Build on the CPU machine: bash scripts/build-device.sh && mkdir -p target/device-base &&
#   cp target/device/{libblasst.so,blasst,build-info.txt} target/device-base/ &&
#   git apply bench/runs/session55/prepared-pv-overlap-early-release.patch &&
#   bash scripts/build-device.sh && git checkout kernels/prefill_sm90.cu
# then carry target/device and target/device-base. (Steps 1-2 use target/device, the patched
# build: if step 3 rejects the patch, rerun them on target/device-base.)
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$LOG"
precompile target/device-base
precompile
export BLASST_PREFILL_PV_OVERLAP=1
timeout 60 target/device/blasst precompile --filter prefill90 > /dev/null 2>&1
GPU_TESTS_TIMEOUT=300 gpu_tests
MEMCHECK_TIMEOUT=150 memcheck dense_matches skip_decisions_match_the_cpu_tile skip_kernel_that_skips_nothing
step "racecheck, tile-by-tile prefill case 0, switch on"
BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=0 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 \
  target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile > "$OUT/racecheck.log" 2>&1
echo "racecheck exit $?" | tee -a "$LOG"
grep -E "SUMMARY|test result" "$OUT/racecheck.log" | tee -a "$LOG"
unset BLASST_PREFILL_PV_OVERLAP
step "A/B: tree (off, on) against the early release (on)"
# (The tree's library twice, as two files: one process keeps the first kernel it compiles for a
# specialisation whatever the switch says later, and one file dlopen()ed twice is one library.)
cp -r target/device-base target/device-base-on
timeout 150 python3 bench/ab_prefill.py target/device-base/libblasst.so \
  target/device-base-on/libblasst.so:BLASST_PREFILL_PV_OVERLAP=1 \
  target/device/libblasst.so:BLASST_PREFILL_PV_OVERLAP=1 > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
