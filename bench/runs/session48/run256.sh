#!/usr/bin/env bash
# Run 256 (session 48): the row-tile warps decode kernel's V-slot race (kernels/decode_warps_sm90.cu:
# consumers that all skipped a tile could free its V slot before the producer's wait on the slot's
# previous phase, deadlocking the CTA; memcheck hung on it in runs 253-255).
# 1. target/device-old (the tree before the fix, with the test delay only): the tile-by-tile test
#    at d = 128 (its warps-kernel cases: 8, 10, 12, 13 and the two of 4 x 50000) with the producer delayed 20 us between its decision wait and
#    its V-slot wait: predicted to hang (timeout 60 s, exit 124).
# 2. target/device (the fix): the same, predicted to pass.
# 3. memcheck over the same cases with the fix (the skip build's copies, contiguous and paged).
# 4. the fix's cost: old against new, speculative decode (8 tokens x GQA 4, dense and skip).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
cases="BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000"
step "old build, producer delayed (predicted: hang, exit 124)"
env $cases timeout 60 target/device-old/gpu_tests --test-threads=1 --nocapture skip_decisions_match_the_cpu_tile > "$OUT/old-delay.log" 2>&1
echo "old build delayed exit $?" | tee -a "$LOG"
tail -4 "$OUT/old-delay.log" | tee -a "$LOG"
step "fixed build, producer delayed (predicted: pass)"
env $cases timeout 150 target/device/gpu_tests --test-threads=1 --nocapture skip_decisions_match_the_cpu_tile > "$OUT/new-delay.log" 2>&1
echo "fixed build delayed exit $?" | tee -a "$LOG"
grep -E "^case|test result" "$OUT/new-delay.log" | tee -a "$LOG"
BLASST_TEST_CASES=8,10,12,13 BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=240 memcheck skip_decisions_match_the_cpu_tile_by_tile --nocapture
grep -E "^case" "$OUT/memcheck.log" | tee -a "$LOG"
step "A/B old vs fixed: 8 tokens x GQA 4, dense and Skip-Softmax"
timeout 110 python3 bench/ab_decode.py target/device-old/libblasst.so target/device/libblasst.so --tokens 8 \
  --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/ab-decode.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
