#!/usr/bin/env bash
# Run 219 (session 37): bench/micro/interleave_order.py on c3dd425's build, on a GPU idle before
# the call: dense / skip-with-nothing-skipped at 4K non-causal timed as bench.py times it, cold and
# warm, in both orders (run 217 had read 0.964x for that row).
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
timeout 200 python3 bench/micro/interleave_order.py target/device/libblasst.so 2>&1 | tee "$OUT/run219-interleave-order.log"
