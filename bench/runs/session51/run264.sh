#!/usr/bin/env bash
# Run 264 (session 51): the tree with run 263's two results in it (kernels/merge.cu sharing a
# CTA's splits out among its warps; the row-tile warps decode kernel's dense calls planned for
# one CTA per SM, skip calls for two: src/attn/plan.rs `warps_one_cta_per_sm`).
# 1. A/B of the plan in one process (bench/micro/paged_layout.py, 4 tokens x GQA 8, dense):
#    BLASST_DECODE_WARPS_ONE_PER_SM=0 (every call two per SM: the plan before), the default, and
#    =1 (every call one per SM), contiguous and over 16- and 64-key pages. Prediction (run 263):
#    the default +2.5-5 % over =0 at 4 x 32K and 1 x 128K contiguous and over 64-key pages,
#    16 x 32K within -1..+2 %; over 16-key pages the default equals =0 (two per SM there), and
#    =1 is unknown there (the one-token kernel lost 18-38 % at one per SM over small pages).
#    bench/ab_decode.py 8 tokens x GQA 4: =0 against the default, dense +0-5 %, skip the same.
# 2. memcheck over every GPU test at d = 128 (the warps kernel's dense calls now take other split
#    counts; the merge kernel is new).
# 3. The whole benchmark, if time is left (on an H100 ~80 s).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
precompile
lib=target/device/libblasst.so var=BLASST_DECODE_WARPS_ONE_PER_SM
LAYOUT_TIMEOUT=100 paged_layout spec4 "$lib:$var=0" "$lib" "$lib:$var=1" --tokens 4 --heads 32/4 \
  --size 4x32768 --size 1x131072 --size 16x32768 --pages 16,64
grep -E "device" "$OUT/spec4-paged-layout.log" | cut -c1-150
step "A/B $var: dense and Skip-Softmax, 8 tokens x GQA 4"
timeout 60 python3 bench/ab_decode.py "$lib:$var=0" "$lib" --tokens 8 \
  --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/ab-decode8.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
grep -E "dense |skip " "$OUT/ab-decode8.log" | cut -c1-200
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=220 memcheck
if [ "$SECONDS" -lt 420 ]; then
  BENCH_TIMEOUT=$((580 - SECONDS)) bench_logged
else
  echo "benchmark left out ($SECONDS s)" | tee -a "$LOG"
fi
