#!/usr/bin/env bash
# Run 280 (session 54, either card): the kernels' first racecheck and synccheck. Until now only
# memcheck ran over the GPU tests (54 sessions). compute-sanitizer's racecheck (shared-memory
# hazards between threads) and synccheck (barriers reached by part of a block, ...), over the
# tile-by-tile test (BLASST_TEST_CASES: 0 = prefill 1024 x 1024, 6 = decode 1 x 8192 one token,
# 7 = decode over 16-key pages, 8 = 4 tokens x GQA 8, 13 = 6 tokens: several row tiles), which
# runs the skip and the dense kernel of each case:
# 1. the portable kernels under the 100 KB emulation at d = 128 and 256 (cp.async and
#    __syncthreads only, which both tools model fully; d = 256 decode on session 54's 32-key
#    tiles and their new P ring, prefill on the compact layout);
# 2. the Hopper kernels at d = 128 (mbarriers, TMA, wgmma: racecheck may not model the async
#    proxy's ordering, so hazards there are read with that in mind).
set -uo pipefail
source bench/runs/common.sh
run_start
sanitize() {  # NAME TOOL LIMIT ENV... : the tile-by-tile test under TOOL with the ENV settings
  local name=$1 tool=$2 limit=$3
  shift 3
  step "$tool: $name ($*)"
  env "$@" BLASST_TEST_CASES=0,6,7,8,13 timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
    target/device/gpu_tests --test-threads=1 --nocapture skip_decisions_match_the_cpu_tile_by_tile > "$OUT/$name.log" 2>&1
  echo "$tool ($name) exit $?" | tee -a "$LOG"
  grep -E "SUMMARY|test result|panicked" "$OUT/$name.log" | tail -3 | tee -a "$LOG"
  grep -cE "^(ok|.*skipped [0-9]+ of)" "$OUT/$name.log" | sed 's/^/  cases done: /' | tee -a "$LOG"
}
P="BLASST_SMEM_PER_SM=102400 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"
sanitize synccheck-portable synccheck 110 $P BLASST_TEST_HEAD_DIMS=128,256
sanitize racecheck-portable racecheck 170 $P BLASST_TEST_HEAD_DIMS=128,256
sanitize synccheck-hopper synccheck 90 BLASST_TEST_HEAD_DIMS=128
sanitize racecheck-hopper racecheck 120 BLASST_TEST_HEAD_DIMS=128
