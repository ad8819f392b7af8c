#!/usr/bin/env bash
# Run 247 (session 44): the GPU tests that run 246's 330 s limit cut off (the padded head dims,
# paged prefill without num_pages, the tile-by-tile decisions at every head dim with the
# three-per-SM cases at d = 128, lambda above one, the bit identity of nothing skipped), on the
# tree whose three-per-SM test cases now run at d = 128 only; then bench/bench.py --decode-only
# (decode and speculative decode tables; the speculative one on the three-per-SM rule).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "gpu tests (the five run 246 did not reach)"
timeout 240 target/device/gpu_tests --test-threads=1 padded_head_dims paged_prefill_without_num_pages \
  skip_decisions_match_the_cpu_tile_by_tile skip_decisions_match_the_cpu_with_lambda_above_one \
  skip_kernel_that_skips_nothing > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "benchmark (decode only)"
BENCH_NAME=bench timeout 150 python3 bench/bench.py --lib target/device/libblasst.so --decode-only --out "$OUT" > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$LOG"
