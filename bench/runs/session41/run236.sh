#!/usr/bin/env bash
# Run 236 (session 41). Run 235's device-patch was not the patch: sharing one CARGO_TARGET_DIR,
# cargo found its worktree's files older than the previous build's outputs and rebuilt nothing,
# so "device-patch" there was d759235 again (its rows agree with device-base's). Built again,
# each worktree with a target directory of its own, the embedded kernels checked by name.
# Builds: device-base = 75a8113 (the tree at the session's start); device = the tree with
# decode_body's three "entries, then load_tile" blocks folded into copy_tile (run 235: 0.997-1.003x
# at d = 128 and 256, one token, contiguous and 64-key pages); device-patch = that plus
# bench/runs/session40/small-pages-in-lanes-row-tiles.patch (16- and 32-key pages' entries in
# lanes for 16-row tiles).
# Predictions: the fold within +-0.5 % in the row-tiled calls too; the patch moves row-tiled 16-key
# calls from 0.74x toward ~0.95x of contiguous, one-token calls of 4 rows unchanged, one-token calls
# of 16 rows (64/4 heads) over 16-key pages faster.
source bench/runs/common.sh
LOG="$OUT/run236-steps.log"
precompile
precompile target/device-patch  # (written out inline when it ran; the same command)
B="target/device-base/libblasst.so target/device/libblasst.so target/device-patch/libblasst.so"
LAYOUT_TIMEOUT=120 paged_layout run236-rows $B --tokens 4 --heads 32/4 --pages 16,32,64 \
  --size 1x131072 --size 4x32768 --size 16x8192
LAYOUT_TIMEOUT=120 paged_layout run236-one $B --pages 16,32,64
LAYOUT_TIMEOUT=60 paged_layout run236-one16rows $B --heads 64/4 --pages 16,64 --size 16x8192 --size 1x131072
gpu_tests
step "memcheck, patched build (all GPU tests)"
timeout 230 compute-sanitizer --tool memcheck --error-exitcode 9 target/device-patch/gpu_tests --test-threads=1 > "$OUT/run236-memcheck-patch.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"
grep -E "ERROR SUMMARY|test result|panicked" "$OUT/run236-memcheck-patch.log" | tail -5 | tee -a "$LOG"
step end
