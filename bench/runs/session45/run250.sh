#!/usr/bin/env bash
# Run 250 (session 45): bench/micro/warp_rows_decode.py, a prototype of speculative decode with
# one CTA per (KV head, split, sequence) whose 4 consumer warps each walk an 8-row tile alone
# (no row-max exchange), next to the library's kernel (target/device, the tree) on the same sizes.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
step "prototype: 4 tokens x GQA 8"
timeout 120 python3 bench/micro/warp_rows_decode.py --configs --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072 --size 16x32768 > "$OUT/proto.log" 2>&1
echo "prototype exit $?" | tee -a "$LOG"
step "prototype: 8 tokens x GQA 4"
timeout 120 python3 bench/micro/warp_rows_decode.py --configs --tokens 8 --heads 32/8 --size 4x32768 --size 1x131072 --size 16x16384 >> "$OUT/proto.log" 2>&1
echo "prototype exit $?" | tee -a "$LOG"
step "library: 4 tokens x GQA 8"
timeout 100 python3 bench/micro/paged_layout.py target/device/libblasst.so --tokens 4 --heads 32/4 \
  --size 4x32768 --size 1x131072 --size 16x32768 --pages 64 > "$OUT/lib-paged-layout.log" 2>&1
echo "paged layout exit $?" | tee -a "$LOG"
step "library: 8 tokens x GQA 4"
timeout 100 python3 bench/ab_decode.py target/device/libblasst.so --tokens 8 \
  --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/lib-ab-decode.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
