#!/usr/bin/env bash
# Run 282 (session 54, either card): run 281 found decode90w's racecheck hazards gone when every
# lane arrives on the empty barriers (and the tests pass so). target/device-exp: that change as
# it would be committed (every lane arrives, 32 x nact per barrier, the __syncwarp before the
# arrival dropped; ptxas sm_90a 158-162 registers, no spills); target/device: the tree (1d75cad).
# Kept only if it costs nothing. Prediction: within +-1 % (two arrivals per warp per tile).
# 1. racecheck over the tile-by-tile test's decode90w cases (8, 13 contiguous; 10 over 64-key
#    pages, 12 over 16-key pages) with the change: 0 hazards expected;
# 2. bench/ab_decode.py, the tree against the change, 8 tokens x GQA 4 (32 packed rows);
# 3. bench/micro/paged_layout.py, 4 tokens x GQA 8, contiguous and 16-/64-key pages;
# 4. the change's GPU tests at d = 128: dense, tile by tile, CUDA graphs; the tile-by-tile test
#    with the producer delayed 20 us (BLASST_DECODE_WARPS_PRODUCER_DELAY_NS, session 48's hang).
set -uo pipefail
source bench/runs/common.sh
run_start
base=target/device/libblasst.so exp=target/device-exp/libblasst.so
sed 's/^/  exp build: /' target/device-exp/build-info.txt | tee -a "$LOG"
step "racecheck decode90w cases, target/device-exp"
BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=8,10,12,13 timeout 120 compute-sanitizer --tool racecheck --print-limit 1000 \
  target/device-exp/gpu_tests --test-threads=1 --nocapture skip_decisions_match_the_cpu_tile_by_tile > "$OUT/racecheck-exp.log" 2>&1
echo "racecheck (exp) exit $?" | tee -a "$LOG"
grep -E "RACECHECK SUMMARY|test result|^case" "$OUT/racecheck-exp.log" | tee -a "$LOG"
step "A/B ab_decode 8 tokens x GQA 4"
timeout 90 python3 bench/ab_decode.py $base $exp --tokens 8 --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/ab-decode8.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
grep -E "dense |skip " "$OUT/ab-decode8.log" | cut -c1-200
LAYOUT_TIMEOUT=100 paged_layout spec4 $base $exp --tokens 4 --heads 32/4 --size 4x32768 --size 16x32768 --pages 16,64
grep -E "device|us" "$OUT/spec4-paged-layout.log" | cut -c1-160 | head -30
step "exp gpu tests d = 128 (dense, tile by tile, graphs)"
BLASST_TEST_HEAD_DIMS=128 timeout 150 target/device-exp/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile calls_replay > "$OUT/exp-tests.log" 2>&1
echo "exp tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/exp-tests.log" | tee -a "$LOG"
step "exp tile-by-tile test, warps producer delayed 20 us"
BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000 timeout 120 target/device-exp/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu_tile_by_tile > "$OUT/exp-delay.log" 2>&1
echo "exp delayed exit $?" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/exp-delay.log" | tee -a "$LOG"
