#!/usr/bin/env bash
# Run 259 (session 48; run as one command line, recorded here): the dense and tile-by-tile tests at
# d = 128 with BLASST_DECODE_WARPS=0 (since the three-per-SM build's removal, two 16-row tiles at
# two CTAs per SM), then all GPU tests at d = 64 and 256.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "gpu tests BLASST_DECODE_WARPS=0 at d = 128 (dense, tile by tile)"
BLASST_DECODE_WARPS=0 BLASST_TEST_HEAD_DIMS=128 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests-no-warps.log" 2>&1
echo "no-warps exit $?" | tee -a "$LOG"
grep -E "test result|panicked" "$OUT/gpu-tests-no-warps.log"
step "gpu tests at d = 64 and 256"
BLASST_TEST_HEAD_DIMS=64,256 timeout 300 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests-64-256.log" 2>&1
echo "d64/256 exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked" "$OUT/gpu-tests-64-256.log" | tail -16
