#!/usr/bin/env bash
# Run 209 (session 34): the Hopper decode kernel's L2 prefetch hint (128 bytes) only where a
# head's row is whole 128-byte lines (DIM % 64 == 0). target/device: the new build;
# target/device-base: a9e8f4c's. Prediction (bench/micro/dram_pattern.py, run 208): d = 96
# dense decode +8-10 % (a plain read in the kernel's pattern: 3.68 -> 4.04 TB/s), d = 80 and 40
# likely up as well, d = 160 (320-byte rows) too, d = 64/128/256 unchanged (same code).
# Correctness first (the padded-head-dim GPU test with the Hopper kernels), then interleaved
# decode A/Bs with PyTorch SDPA in the same process, then memcheck over the padded test at 96.
source bench/runs/common.sh
DIMS=40,72,80,96,120,160
step "precompile padded head dims (new, base)"
timeout 150 target/device/blasst precompile --head-dims $DIMS > "$OUT/precompile-padded.log" 2>&1
echo "precompile padded exit $?" | tee -a "$LOG"
timeout 150 target/device-base/blasst precompile --head-dims 40,80,96,160 > "$OUT/precompile-base.log" 2>&1
echo "precompile base exit $?" | tee -a "$LOG"
step "padded gpu tests (Hopper kernels)"
BLASST_TEST_PADDED_HEAD_DIMS=$DIMS timeout 200 target/device/gpu_tests --test-threads=1 --nocapture padded merge_states > "$OUT/gpu-tests-padded.log" 2>&1
echo "padded gpu tests exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests-padded.log" | head -5 | tee -a "$LOG"
for d in 96 80 40 160 128; do
  step "ab decode d = $d"
  echo "===== d = $d" >> "$OUT/ab-decode.log"
  PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_decode.py target/device-base/libblasst.so target/device/libblasst.so --d $d \
    --size 1x65536 --size 16x16384 --size 16x32768 --size 64x8192 >> "$OUT/ab-decode.log" 2>&1
  echo "ab decode d = $d exit $?" | tee -a "$LOG"
done
memcheck padded
step done
