#!/usr/bin/env bash
# Run 157 (session 23): the final tree. The device check's GPU tests (the 12 GPU tests, the 5
# gpu_threads tests, the 2 context tests), check_prefill and the demo, without the portable
# kernels' tests, the no-TMA tests, memcheck (run 155 ran it over this session's context change;
# since then only the host path's reads of switches and of the context changed) and the
# benchmark (no kernel changed). Then: that the benchmark scripts still switch kernels between
# calls (check_prefill with BLASST_LOG=debug must load the portable prefill kernels, which only
# its "mma" calls use), and the host cost once more.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
SKIP_MMA_TESTS=1 SKIP_NO_TMA_TESTS=1 SKIP_SANITIZER=1 SKIP_BENCH=1 bash scripts/device-check.sh
L="$OUT/run.log"
echo "===== check_prefill with BLASST_LOG=debug: kernels loaded" >> "$L"
BLASST_LOG=debug BLASST_CACHE_DIR=/tmp/blasst-cache timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so > "$OUT/check-debug.log" 2>&1
echo "check_prefill exit $?" >> "$L"
grep -oE "blasst_fwd_prefill(90)?_bf16_d[0-9]+_dense" "$OUT/check-debug.log" | sort | uniq -c >> "$L"
tail -1 "$OUT/check-debug.log" >> "$L"
echo "===== host_cost" >> "$L"
timeout 60 target/device/host_cost >> "$L" 2>&1; echo "host_cost exit $?" >> "$L"
tail -22 "$L"
