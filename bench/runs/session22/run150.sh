#!/usr/bin/env bash
# Run 150 (session 22): device-check.sh's new first step, `blasst precompile` (every variant for
# this GPU on all cores into the disk cache), and the GPU tests after it (run 147: 244 s with
# the kernels compiled one at a time on first use; run 149: 65 s of it in the decode occupancy
# test, which loads every decode variant).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
s=$(date +%s%N)
timeout 180 target/device/blasst precompile > "$OUT/precompile.log" 2>&1
echo "precompile exit $? in $((($(date +%s%N) - s) / 1000000)) ms; $(tail -1 "$OUT/precompile.log")" | tee "$OUT/run.log"
s=$(date +%s%N)
timeout 300 target/device/gpu_tests --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $? in $((($(date +%s%N) - s) / 1000000)) ms; $(grep 'test result' "$OUT/gpu_tests.log")" | tee -a "$OUT/run.log"
