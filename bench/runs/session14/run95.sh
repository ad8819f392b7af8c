#!/usr/bin/env bash
# Runs 95-96: the Hopper prefill kernel with a TMA producer warp (non-paged layouts; consumers at 240
# registers): correctness (check_prefill, the GPU tests with the Hopper kernels, the prefill
# tests again with BLASST_PREFILL_TMA=0), then an interleaved A/B against session 13's build.
# (Run 95 faulted: the host aligned the tensor maps to 128 bytes, the kernel to 64.)
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
SKIP_MMA_TESTS=1 SKIP_SANITIZER=1 SKIP_BENCH=1 scripts/device-check.sh
export BLASST_CACHE_DIR=/tmp/blasst-cache
echo "=== gpu tests with BLASST_PREFILL_TMA=0 (prefill on cp.async)" | tee -a "$OUT/run.log"
BLASST_PREFILL_TMA=0 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu_tests_notma.log" 2>&1
echo "gpu tests (no TMA) exit $?" | tee -a "$OUT/run.log"; grep -E "test result" "$OUT/gpu_tests_notma.log"
echo "=== A/B d128" | tee -a "$OUT/run.log"
timeout 240 python3 bench/ab_prefill.py target/device-base14/libblasst.so target/device-tma/libblasst.so > "$OUT/ab_d128.log" 2>&1
echo "ab exit $?" >> "$OUT/ab_d128.log"; cat "$OUT/ab_d128.log"
