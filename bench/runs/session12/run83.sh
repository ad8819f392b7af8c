#!/bin/bash
# run 83: portable-kernel GPU tests with the d = 256 plan change; d = 64 timings; decode pipeline/units sweep
export BLASST_CACHE_DIR=/tmp/blasst-cache
L=target/device/libblasst.so
echo "=== gpu tests, mma kernels" | tee $OUT/run.log
BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 300 target/device/gpu_tests --test-threads=1 --nocapture > $OUT/gpu_tests_mma.log 2>&1
echo "gpu tests (mma) exit $?" | tee -a $OUT/run.log; grep "test result" $OUT/gpu_tests_mma.log | tee -a $OUT/run.log
echo "=== d = 64" | tee -a $OUT/run.log
timeout 150 python3 bench/head_dim_256.py $L --d 64 2>&1 | tee $OUT/d64.log
echo "=== decode sweep" | tee -a $OUT/run.log
(
python3 bench/tune_decode.py $L --sdpa
for c in 2,1 2,2 3,2; do BLASST_DECODE90=$c python3 bench/tune_decode.py $L; done
for c in 3,2 6,3 8,4; do BLASST_DECODE_UNITS=132 BLASST_DECODE90=$c python3 bench/tune_decode.py $L; done
python3 bench/tune_decode.py $L --sdpa
) 2>&1 | tee $OUT/decode-sweep.log
