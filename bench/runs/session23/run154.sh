#!/usr/bin/env bash
# Run 154 (session 23): run 153 again after its two fixes (the decode plan asked the context before the launch; the test compared bf16 poison with f32); the context a call runs in (tests/gpu_contexts.rs), alone and under
# memcheck, after the precompile; then the host time per call (bench/micro/host_overhead.py).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache RUST_BACKTRACE=1
L="$OUT/run154.log"
timeout 180 target/device/blasst precompile > "$L" 2>&1; echo "precompile exit $?" >> "$L"
echo "===== gpu_contexts" >> "$L"
timeout 120 target/device/gpu_contexts --test-threads=1 --nocapture >> "$L" 2>&1; echo "gpu_contexts exit $?" >> "$L"
echo "===== memcheck gpu_contexts (first test)" >> "$L"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_contexts --test-threads=1 a_thread_without_a_current_context >> "$L" 2>&1; echo "memcheck exit $?" >> "$L"
echo "===== memcheck gpu_contexts (refusal, API errors not reported)" >> "$L"
timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_contexts --test-threads=1 a_stream_of_another >> "$L" 2>&1; echo "memcheck2 exit $?" >> "$L"
echo "===== host overhead" >> "$L"
timeout 120 python3 bench/micro/host_overhead.py target/device/libblasst.so >> "$L" 2>&1; echo "host_overhead exit $?" >> "$L"
tail -60 "$L"
