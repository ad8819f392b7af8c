#!/bin/bash
# run 85: the decode plan made for the GPU (one wave of the decode kernel's CTAs), the Hopper
# decode kernel at 3 CTAs/SM at d = 64: GPU tests with both kernel sets, memcheck, timings.
L=target/device/libblasst.so
SKIP_BENCH=1 scripts/device-check.sh
echo "=== d = 64 (396-unit decode plan)"; timeout 150 python3 bench/head_dim_256.py $L --d 64 2>&1 | tee $OUT/d64.log
echo "=== d = 256 decode"; timeout 100 python3 bench/head_dim_256.py $L --decode-only 2>&1 | tee $OUT/d256-decode.log
echo "=== 4 tokens x GQA 8 (32 rows: the portable kernel), d = 128: plan of one wave (132 units) vs 264"
(python3 bench/tune_decode.py $L --shape 4,32768,64,8,4 --sdpa
 BLASST_DECODE_UNITS=264 python3 bench/tune_decode.py $L --shape 4,32768,64,8,4
 python3 bench/tune_decode.py $L --shape 16,8192,64,8,4
 BLASST_DECODE_UNITS=264 python3 bench/tune_decode.py $L --shape 16,8192,64,8,4
 python3 bench/tune_decode.py $L --shape 4,32768,64,8,4) 2>&1 | tee $OUT/rows32.log
