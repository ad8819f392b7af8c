#!/usr/bin/env bash
# Run 97: TMA in the Hopper decode kernel too (whole tiles of contiguous caches and of pages of
# >= 64 keys; thread 0 issues them; the tile layout becomes TMA's 128-byte swizzle of 64-column
# blocks): correctness (check_prefill, the GPU tests with the Hopper kernels, dense and
# tile-by-tile tests again with BLASST_TMA=0), then an interleaved decode A/B against session
# 13's build (device-base14) and the prefill TMA build of run 96 (device-tma).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
SKIP_MMA_TESTS=1 SKIP_SANITIZER=1 SKIP_BENCH=1 scripts/device-check.sh
export BLASST_CACHE_DIR=/tmp/blasst-cache
echo "=== gpu tests with BLASST_TMA=0 (cp.async only)" | tee -a "$OUT/run.log"
BLASST_TMA=0 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu_tests_notma.log" 2>&1
echo "gpu tests (no TMA) exit $?" | tee -a "$OUT/run.log"; grep -E "test result" "$OUT/gpu_tests_notma.log"
echo "=== decode A/B" | tee -a "$OUT/run.log"
timeout 300 python3 bench/ab_decode.py target/device-base14/libblasst.so target/device-tma2/libblasst.so > "$OUT/ab_decode.log" 2>&1
echo "ab exit $?" >> "$OUT/ab_decode.log"; cat "$OUT/ab_decode.log"
