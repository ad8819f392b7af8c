#!/usr/bin/env bash
# Run 205 (session 32): is decode at a padded head dim short of bytes in flight? The Hopper decode
# kernel at d = 96 and 80 (on the d = 128 kernel) with its default K ring (3 slots, lag 2) and with
# 4 and 5 K slots (BLASST_DECODE90, the tuning override, read once per process), against d = 128
# itself; bench/head_dim_256.py --decode-only (1 x 64K, 16 x 16K; 32 query / 8 KV heads).
source bench/runs/common.sh
precompile
for d in 96 80 128; do
  for cfg in default 4,2 5,2; do
    step "d = $d, K ring $cfg"
    echo "===== d = $d, BLASST_DECODE90=$cfg" >> "$OUT/decode.log"
    if [ "$cfg" = default ]; then e=(); else e=(BLASST_DECODE90=$cfg); fi
    env "${e[@]}" PYTHONUNBUFFERED=1 timeout 60 python3 bench/head_dim_256.py target/device/libblasst.so --d $d --decode-only >> "$OUT/decode.log" 2>&1
  done
done
step done
