#!/usr/bin/env bash
# Run 187 (session 29): the device check of 8914484 (tensor maps: Q's map and kv_map_rows from one
# MapRows::unpaged, host code only, not yet run on the GPU): precompile, check_prefill,
# check_paged_prefill, the GPU tests with the Hopper kernels, threads, contexts, the no-TMA tests,
# demo (the portable kernels use no tensor maps: SKIP_MMA_TESTS=1; memcheck follows in a later call).
# Then a timing-only diagnostic (target/device-nov: paged prefill's V thread issues no boxes, so V
# is never loaded and the output is wrong): how much of a paged visit's time V's TMA boxes take at
# 16-key pages (32 boxes of 2 KB per visit at d = 128) against 64-key pages (8 boxes).
SKIP_SANITIZER=1 SKIP_BENCH=1 SKIP_MMA_TESTS=1 bash scripts/device-check.sh
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step "diag: no V boxes, d128 page 16"
PYTHONUNBUFFERED=1 timeout 70 python3 bench/ab_prefill.py target/device/libblasst.so target/device-nov/libblasst.so --page=16 > "$OUT/ab.log" 2>&1
step "diag: no V boxes, d128 page 64"
echo "===== d128 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_prefill.py target/device/libblasst.so target/device-nov/libblasst.so --paged >> "$OUT/ab.log" 2>&1
step done
