#!/usr/bin/env bash
# (Its paged_layout step was written out inline when it ran; the same command.)
# Run 225 (session 39), the tree to be committed (c237e34's kernels; paged dense decode calls over
# 256-key pages or more planned for one CTA per SM): bench/micro/paged_layout.py at the sizes
# whose one-CTA-per-SM plan differs, against the same build with BLASST_DECODE_PAGED_ONE_PER_SM=0
# (every paged call at two CTAs per SM, as before); all GPU tests under compute-sanitizer memcheck
# (their assertions and the sanitizer's checks in one pass); scripts/device-check.sh's benchmark.
source bench/runs/common.sh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
precompile
LAYOUT_TIMEOUT=120 paged_layout run225 target/device/libblasst.so \
  target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=0 --size 1x131072 --size 2x32768 --size 8x8192
step "memcheck (all GPU tests)"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"
grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
