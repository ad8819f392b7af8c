#!/usr/bin/env bash
# Run 281 (session 54, either card): run 280's racecheck reported hazards in the row-tile warps
# decode kernel (decode90w) only: the producer's cp.async writes of a K slot against the
# consumer warps' ldmatrix reads of it (192 errors, 20 shown; the one-token Hopper decode kernel,
# whose copies also complete on cp.async mbarriers but whose slots are reused after a
# __syncthreads, none). decode90w frees a slot with one arrival per warp: the warp's lanes read,
# __syncwarp, lane 0 arrives on the empty mbarrier (release), the producer waits on it
# (acquire) and then copies; by the PTX memory model that orders every lane's read before the
# copy. Question: a real race, or racecheck not carrying __syncwarp's ordering into lane 0's
# arrival? target/device-exp is the same tree with every lane arriving (the empty barriers
# counting 32 x the warps; built from an uncommitted change, not kept). Racecheck over the
# tile-by-tile test's decode90w cases (8: 4 tokens x GQA 8, 13: 6 tokens) at d = 128 with each
# build, the hazards counted by kernel; then the experiment build's tile-by-tile test plainly.
set -uo pipefail
source bench/runs/common.sh
run_start
for build in device device-exp; do
  step "racecheck decode90w cases, target/$build ($(cat target/$build/build-info.txt | head -1))"
  BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=8,13 timeout 150 compute-sanitizer --tool racecheck --print-limit 1000 \
    target/$build/gpu_tests --test-threads=1 --nocapture skip_decisions_match_the_cpu_tile_by_tile > "$OUT/racecheck-$build.log" 2>&1
  echo "racecheck ($build) exit $?" | tee -a "$LOG"
  grep -E "RACECHECK SUMMARY|test result" "$OUT/racecheck-$build.log" | tee -a "$LOG"
  grep -oE "Race reported between [A-Za-z]+ access at [a-z_0-9]+.* in blasst_[a-z0-9_]+" "$OUT/racecheck-$build.log" \
    | sed -E 's/\(.*\)\+0x[0-9a-f]+//' | sort | uniq -c | tee -a "$LOG"
done
step "tile-by-tile test, target/device-exp, d = 128"
BLASST_TEST_HEAD_DIMS=128 timeout 120 target/device-exp/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile dense_matches > "$OUT/exp-tests.log" 2>&1
echo "exp tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/exp-tests.log" | tee -a "$LOG"
