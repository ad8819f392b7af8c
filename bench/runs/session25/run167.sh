#!/usr/bin/env bash
# Run 167 (session 25): the Hopper prefill with three consumer warpgroups at d = 64 (192-row
# CTAs): correctness (check_prefill, the GPU tests), an interleaved d = 64 A/B against the tree
# before it (target/device-base = e9498df), and d = 64 against PyTorch SDPA.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$LOG" 2>&1
step precompile
timeout 120 target/device/blasst precompile >> "$LOG" 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step check_prefill
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$LOG" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
step "ab d64"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 > "$OUT/ab-d64.log" 2>&1
echo "ab exit $?" | tee -a "$OUT/ab-d64.log" "$LOG"
step "d64 vs sdpa"
PYTHONUNBUFFERED=1 timeout 100 python3 bench/head_dim_256.py target/device/libblasst.so --d 64 > "$OUT/d64.log" 2>&1
echo "d64 exit $?" | tee -a "$OUT/d64.log" "$LOG"
step "gpu tests"
timeout 240 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$OUT/gpu-tests.log" "$LOG"
step done
