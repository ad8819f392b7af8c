#!/usr/bin/env bash
# Run 263 (session 50): session 49's prepared run 262 (never run; this script replaces it: the merge
# kernel with the splits shared out among the warps, A/B against the tree, also A/B-ing
# BLASST_DECODE_WARPS_ONE_PER_SM=1; GPU tests at d = 128, 64, 256; memcheck of the dense test at
# d = 128), slimmed to fit what device time was left after seven failed starts: the steps run
# in order of need, and the whole benchmark on the tree's build (target/device-base) only on an
# H200 with time to spare (the first H200 tables with the warps kernel).
# Builds: target/device-base = the tree, target/device = the tree with
# bench/runs/session49/merge-splits-by-warps.patch applied (bench/runs/session50/build263.sh builds both).
# Predictions (session 49): new merge +2-5 % at 1 x 128K speculative (33-66 splits), +0-2 % at
# 4 x 32K (8-16 splits), one-token calls within 1 %; one CTA per SM: +2-5 % at 1 x 128K and
# 4 x 32K, 16 x 16K unchanged or slower.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile_ab
base=target/device-base/libblasst.so lib=target/device/libblasst.so one="$lib:BLASST_DECODE_WARPS_ONE_PER_SM=1"
LAYOUT_TIMEOUT=60 paged_layout spec4 $base $lib "$one" --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072 --size 16x32768 --pages 64
grep -E "contiguous|paged 64 shuffled" "$OUT/spec4-paged-layout.log"
step "A/B ab_decode 8 tokens x GQA 4"
timeout 90 python3 bench/ab_decode.py $base $lib "$one" --tokens 8 --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/ab-decode8.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
step "A/B ab_decode one token (merge kernel: 1 x 128K 16 splits, 2 x 32K 8 splits)"
timeout 40 python3 bench/ab_decode.py $base $lib --size 1x131072 --size 2x32768 > "$OUT/ab-decode1.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
grep -E "dense |skip " "$OUT"/ab-decode*.log | cut -c1-220
for hd in 128 64 256; do
  step "gpu tests at d = $hd: dense, bit identity"
  BLASST_TEST_HEAD_DIMS=$hd timeout 90 target/device/gpu_tests --test-threads=1 dense_matches_cpu skip_kernel_that_skips_nothing \
    > "$OUT/gpu-tests-$hd.log" 2>&1
  echo "gpu tests d = $hd exit $?" | tee -a "$LOG"
  grep -E "test result|panicked" "$OUT/gpu-tests-$hd.log" | tee -a "$LOG"
done
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=80 memcheck dense_matches_cpu
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && [ "$SECONDS" -lt 300 ]; then
  BENCH_LIB=target/device-base/libblasst.so BENCH_TIMEOUT=$((560 - SECONDS)) bench_logged
else
  echo "benchmark left out (card or time: $SECONDS s)" | tee -a "$LOG"
fi
