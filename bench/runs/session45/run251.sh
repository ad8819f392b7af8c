#!/usr/bin/env bash
# Run 251 (session 45): the row-tile warps decode kernel (kernels/decode_warps_sm90.cu) in the
# library: calls of 17-64 packed rows at d = 128 on Hopper plan 8-row tiles, four per CTA
# (attn::plan::decode_warps). The GPU tests at d = 128 (the head dim whose plans changed), then
# one library with the kernel off (BLASST_DECODE_WARPS=0: two 16-row tiles, three CTAs per SM
# where that wave fills) against on: speculative decode (spec_ab) and one-token calls of 64 rows.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "gpu tests at d = 128"
BLASST_TEST_HEAD_DIMS=128 timeout 300 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result|panicked" "$OUT/gpu-tests.log" | head -24 | tee -a "$LOG"
grep -E "decode90w" "$OUT/gpu-tests.log" | head -3 | tee -a "$LOG"
spec_ab warps BLASST_DECODE_WARPS
