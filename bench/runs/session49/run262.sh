#!/usr/bin/env bash
# Run 262 (session 49). Run 261 (H100) found the warps kernel's small speculative calls ~6-11 us
# per call slower than their bytes at copy speed (4 tokens x GQA 8: 4 x 32K 100.3 us, 1 x 128K
# 104.3 us start to start, 268 MB) where one-token calls lose ~2 us, and fewer splits faster
# (1 x 128K: 66 splits 104.3 us, 33 splits 98.8 us). The merge kernel walked all the splits per
# thread, 8 loads in flight at a time.
# Builds: target/device-base = the tree (run 261's producer order, the merge as before);
# target/device = the tree with bench/runs/session49/merge-splits-by-warps.patch applied (the
# merge with the splits shared out among the warps); both have the switch
# BLASST_DECODE_WARPS_ONE_PER_SM=1 (the warps plan for one CTA per SM).
# NOT RUN in session 49: no device time was left (four starts failed after run 261). The next session's first
# call.
# Prediction: new merge +2-5 % at 1 x 128K speculative (33-66 splits), +0-2 % at 4 x 32K
# (8-16 splits), one-token calls within 1 % (16 splits of 4 rows); one CTA per SM: +2-5 %
# at 1 x 128K and 4 x 32K (fewer splits), 16 x 16K unchanged or slower.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile_ab  # (common.sh since the session's review: the same commands)
base=target/device-base/libblasst.so lib=target/device/libblasst.so one="$lib:BLASST_DECODE_WARPS_ONE_PER_SM=1"
step "A/B ab_decode 8 tokens x GQA 4"
timeout 120 python3 bench/ab_decode.py $base $lib "$one" --tokens 8 --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/ab-decode8.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
LAYOUT_TIMEOUT=60 paged_layout spec4 $base $lib "$one" --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072 --size 16x32768 --pages 64
step "A/B ab_decode one token (merge kernel: 1 x 128K 16 splits, 2 x 32K 8 splits)"
timeout 50 python3 bench/ab_decode.py $base $lib --size 1x131072 --size 2x32768 > "$OUT/ab-decode1.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
grep -E "dense |skip " "$OUT"/ab-decode*.log | cut -c1-220
grep -E "contiguous|paged 64 shuffled" "$OUT/spec4-paged-layout.log"
for hd in 128 64 256; do
  step "gpu tests at d = $hd: dense, bit identity, sweep"
  BLASST_TEST_HEAD_DIMS=$hd timeout 100 target/device/gpu_tests --test-threads=1 dense_matches_cpu skip_kernel_that_skips_nothing \
    calibration_sweep > "$OUT/gpu-tests-$hd.log" 2>&1
  echo "gpu tests d = $hd exit $?" | tee -a "$LOG"
  grep -E "test result|panicked" "$OUT/gpu-tests-$hd.log" | tee -a "$LOG"
done
BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS_ONE_PER_SM=1 timeout 60 target/device/gpu_tests --test-threads=1 dense_matches_cpu \
  skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests-one.log" 2>&1
echo "gpu tests (warps one per SM) exit $?" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/gpu-tests-one.log" | tee -a "$LOG"
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=90 memcheck dense_matches_cpu
