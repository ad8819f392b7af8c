#!/usr/bin/env bash
# Run 126 (diagnostic): where run 123's balanced dense decode lost its time. Per-kernel GPU times
# (torch.profiler, bench/micro/profile_decode_kernels.py) of the shipped library and of the
# balanced build (patch run123-balanced-decode-rejected.patch, target/device-bal): did the decode
# kernel itself get faster with all 132 SMs busy, and what do the merge kernel and the gap cost?
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 200 python3 bench/micro/profile_decode_kernels.py target/device-head/libblasst.so target/device-bal/libblasst.so \
  --size 16x32768 --size 64x8192 --size 32x16384 > "$OUT/prof.log" 2>&1
echo "exit $?" >> "$OUT/prof.log"
cat "$OUT/prof.log"
