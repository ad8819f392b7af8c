#!/usr/bin/env bash
# Everything the GPU machine runs, in one call: GPU tests, the same under compute-sanitizer
# (memcheck), the demo on the GPU, and the benchmark. Logs go to $OUT.
# Build first on the CPU machine: scripts/build-device.sh (puts binaries under target/device).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
export RUST_BACKTRACE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
step() { echo "=== $1"; }
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  step "gpu tests"
  timeout 300 target/device/gpu_tests --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $?" | tee -a "$OUT/gpu_tests.log"
  tail -5 "$OUT/gpu_tests.log"
fi
if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  step "compute-sanitizer memcheck"
  # --report-api-errors no: the host-pointer test provokes cuPointerGetAttribute's
  # CUDA_ERROR_INVALID_VALUE on purpose (that is how host memory is detected).
  timeout 400 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_tests --test-threads=1 \
    ${SANITIZE_FILTER:-} > "$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?" | tee -a "$OUT/memcheck.log"
  grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3
fi
step "demo"
timeout 60 target/device/blasst demo --seqlen 4096 --heads 32 > "$OUT/demo.log" 2>&1; echo "demo exit $?" >> "$OUT/demo.log"
tail -8 "$OUT/demo.log"
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  step "benchmark"
  PYTHONUNBUFFERED=1 timeout ${BENCH_TIMEOUT:-400} python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
  echo "bench exit $?" | tee -a "$OUT/bench.log"
  tail -3 "$OUT/bench.log" | cut -c1-400
fi
