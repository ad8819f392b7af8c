#!/usr/bin/env bash
# Run 196 (session 31): the portable decode kernel at d = 256 with launch bounds of one CTA per SM
# (nvrtc::decode_ctas_bound; its shared memory held only one anyway), so it no longer spills
# (sm_80: 108-124 bytes before, 0 now; sm_90a likewise 0). Its d <= 128 cubins are 83fc5fc's
# (SASS compared). Against 83fc5fc (target/device-base): interleaved decode A/Bs at d = 256 with
# the portable kernel forced (BLASST_DECODE_KERNEL=mma) at 1 token (4 packed rows), with the
# Hopper decode kernel's two 8-row tiles as a third build at 3 tokens (12 rows), and at 8 tokens
# (32 rows, where the H200 runs the portable kernel by default); then the GPU tests with the
# portable decode kernel, the dense test and the occupancy test with the default kernels, and
# memcheck over the lambda > 1 tile-by-tile test with the portable decode kernel.
source bench/runs/common.sh
precompile
B=target/device-base/libblasst.so
N=target/device/libblasst.so
SIZES="--size 1x65536 --size 16x16384 --size 64x4096"
abd() {
  local label=$1
  shift
  step "ab_decode $label"
  echo "===== $label" >> "$OUT/ab.log"
  PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_decode.py "$@" $SIZES --d256 >> "$OUT/ab.log" 2>&1
}
abd "d256 1 token, portable" $B:BLASST_DECODE_KERNEL=mma $N:BLASST_DECODE_KERNEL=mma --tokens 1
abd "d256 3 tokens, portable, and the new build's default (decode90, two tiles)" $B:BLASST_DECODE_KERNEL=mma $N:BLASST_DECODE_KERNEL=mma $N --tokens 3
abd "d256 8 tokens (32 rows: portable by default)" $B $N --tokens 8
step "gpu tests, BLASST_DECODE_KERNEL=mma"
BLASST_DECODE_KERNEL=mma timeout 170 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests-mma.log" 2>&1
echo "gpu tests (mma) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-mma.log" | head -5 | tee -a "$LOG"
step "gpu tests (default kernels): dense, occupancy"
timeout 90 target/device/gpu_tests --test-threads=1 dense_matches decode_plan_counts > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
BLASST_DECODE_KERNEL=mma memcheck lambda_above_one
step done
