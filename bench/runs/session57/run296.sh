#!/usr/bin/env bash
# Run 296 (session 57): are the prefill's skipped visits bound by their K/V copies, and does
# copying V only for kept tiles (V_DEMAND, BLASST_PREFILL_V_ON_DEMAND=1) pay?
# Builds: target/device-base (46e2bfa, the kernels of the tree), target/device-nov (46e2bfa with
# ../session56/run295-no-v-reload.patch: V copied only while the ring fills; wrong output, timing
# only), target/device (a2854f4: V_DEMAND behind its switch, the default kernels equal to base's;
# rejected after this run and taken out of the tree: run296-v-on-demand-rejected.patch, which
# applies to 99353a9).
# 1. the switch's correctness: tile-by-tile skip decisions and outputs against the CPU, the skip
#    kernel with nothing skipped bit-identical to dense (d = 128), then memcheck over the
#    tile-by-tile test;
# 2. one interleaved A/B of base | no V reload | V on demand (overlap on, the default);
# 3. run 295's second half: base | no V reload with the overlap off.
# Predictions: if no-V-reload gains >10 % at 90 % skipped, copies bind; V on demand should then
# take most of that gain at 70-90 % and lose 0-3 % at ~50 % (its copies issued late).
set -uo pipefail
source bench/runs/common.sh
precompile_ab
precompile target/device-nov
BLASST_PREFILL_V_ON_DEMAND=1 timeout 120 target/device/blasst precompile > /dev/null 2>&1
step "gpu tests, BLASST_PREFILL_V_ON_DEMAND=1, d = 128"
BLASST_PREFILL_V_ON_DEMAND=1 BLASST_TEST_HEAD_DIMS=128 timeout 200 target/device/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu_tile_by_tile skip_kernel_that_skips_nothing > "$OUT/gpu-tests-vdemand.log" 2>&1
echo "gpu tests (V on demand) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-vdemand.log" | head -5 | tee -a "$LOG"
step "A/B: tree | no V reload | V on demand (overlap on)"
mkdir -p target/device-vd && cp target/device/libblasst.so target/device-vd/
timeout 200 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-nov/libblasst.so \
  target/device-vd/libblasst.so:BLASST_PREFILL_V_ON_DEMAND=1 > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
step "memcheck, tile by tile, V on demand, d = 128"
BLASST_PREFILL_V_ON_DEMAND=1 BLASST_TEST_HEAD_DIMS=128 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
  target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"
grep -E "test result|ERROR SUMMARY" "$OUT/memcheck.log" | tail -2 | tee -a "$LOG"
step "A/B: tree | no V reload, overlap off"
mkdir -p target/device-base-off target/device-nov-off
cp target/device-base/libblasst.so target/device-base-off/ && cp target/device-nov/libblasst.so target/device-nov-off/
BLASST_PREFILL_PV_OVERLAP=0 timeout 120 target/device-base/blasst precompile > /dev/null 2>&1
BLASST_PREFILL_PV_OVERLAP=0 timeout 120 target/device-nov/blasst precompile > /dev/null 2>&1
timeout 150 python3 bench/ab_prefill.py target/device-base-off/libblasst.so:BLASST_PREFILL_PV_OVERLAP=0 \
  target/device-nov-off/libblasst.so:BLASST_PREFILL_PV_OVERLAP=0 > "$OUT/ab-off.log" 2>&1
echo "ab (off) exit $?" | tee -a "$LOG"
