#!/usr/bin/env bash
# Run 235 (session 41), three questions in one lease:
# 1. Session 40's row-tiled decode plan (fca5c9f: dense calls of several row tiles keep two CTAs
#    per SM), never timed as an A/B: d759235 (device-base) against the tree (device), speculative
#    decode shape (--tokens 4 --heads 32/4). Prediction: 1x131072 contiguous ~94 us (141.6 before).
# 2. bench/runs/session40/small-pages-in-lanes-row-tiles.patch (device-patch): 16-key pages'
#    entries in lanes for 16-row tiles. Prediction: row-tiled 16-key calls 0.74x -> ~0.95x of
#    contiguous; one-token calls (4 rows) unchanged; one-token 16-row calls (64/4 heads) faster.
#    Then all GPU tests of the patched build under memcheck.
# 3. decode_body's three "entries, then load_tile" blocks folded into one lambda (device-fold):
#    ab_decode at d = 128 and 256 against the tree. Prediction: within +-0.5 % (it changed the
#    codegen of 34 of 54 decode90 cubins).
# AS RUN, device-patch was NOT the patch: device-base and device-patch shared one CARGO_TARGET_DIR,
# and cargo found the patch worktree's files older than the base build's outputs and rebuilt
# nothing, so device-patch was d759235 a second time (its rows match device-base's; its memcheck
# log is kept as run235-memcheck-d759235.log). Run 236 measured the patch, built on its own.
source bench/runs/common.sh
LOG="$OUT/run235-steps.log"
precompile
precompile target/device-patch  # (written out inline when it ran; the same command)
LAYOUT_TIMEOUT=100 paged_layout run235-rows target/device-base/libblasst.so target/device/libblasst.so \
  target/device-patch/libblasst.so --tokens 4 --heads 32/4 --pages 16,64 --size 1x131072 --size 4x32768
LAYOUT_TIMEOUT=100 paged_layout run235-one target/device/libblasst.so target/device-patch/libblasst.so --pages 16,32,64
LAYOUT_TIMEOUT=60 paged_layout run235-one16rows target/device/libblasst.so target/device-patch/libblasst.so \
  --heads 64/4 --pages 16,64 --size 16x8192 --size 1x131072
step "ab_decode fold d = 128"
PYTHONUNBUFFERED=1 timeout 100 python3 bench/ab_decode.py target/device/libblasst.so target/device-fold/libblasst.so \
  > "$OUT/run235-ab-fold-d128.log" 2>&1
echo "ab_decode exit $?" | tee -a "$LOG"
step "ab_decode fold d = 256"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_decode.py target/device/libblasst.so target/device-fold/libblasst.so \
  --d256 --size 1x131072 --size 16x32768 --size 64x8192 > "$OUT/run235-ab-fold-d256.log" 2>&1
echo "ab_decode exit $?" | tee -a "$LOG"
step "memcheck, patched build (all GPU tests)"
timeout 230 compute-sanitizer --tool memcheck --error-exitcode 9 target/device-patch/gpu_tests --test-threads=1 > "$OUT/run235-memcheck-patch.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"
grep -E "ERROR SUMMARY|test result|panicked" "$OUT/run235-memcheck-patch.log" | tail -5 | tee -a "$LOG"
step end
