#!/usr/bin/env bash
# Run 200 (session 31): the H200 emulating a GPU of 100 KB shared memory per SM (sm_86, sm_89,
# sm_120: BLASST_SMEM_PER_SM=102400) with the portable kernels: the GPU tests at head dims 64 and
# 128 (new BLASST_TEST_HEAD_DIMS; such a GPU refuses d = 256), all but the driver-occupancy test
# (the driver still sees the H200's memory). Decode there runs 2 stages (two CTAs per SM at
# d = 64, one at d = 128). Then the portable decode's rate in that configuration (ab_decode.py,
# one process per head dim), and a d = 256 decode call, which must be refused with a message.
# (Rewritten after the run to call common.sh's emulated_gpu_tests: the same command.)
source bench/runs/common.sh
precompile
E100="BLASST_SMEM_PER_SM=102400 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"
emulated_gpu_tests 102400 64,128 100kb
for d in --d64 --d128 --d256; do
  step "100 KB emulation, decode $d"
  echo "===== 100 KB emulation $d" >> "$OUT/ab.log"
  env $E100 PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_decode.py target/device/libblasst.so --size 16x32768 $d >> "$OUT/ab.log" 2>&1
  echo "exit $?" >> "$OUT/ab.log"
done
step done
