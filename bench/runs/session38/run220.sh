#!/usr/bin/env bash
# Run 220 (session 38): paged dense decode next to PyTorch SDPA (on the contiguous cache; SDPA
# has no paged form), timed in alternation (bench/ab_decode.py), at issue 6's three sizes, on the
# shipped build (39bb68b). bench.py times paged rows apart; "Against the targets" had stated the
# SDPA target for contiguous caches only.
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
for i in 1 2; do
  timeout 250 python3 bench/ab_decode.py target/device/libblasst.so --size 1x131072 --size 16x32768 --size 64x8192 --gaussian 2>&1 | tee "$OUT/run220-ab-decode-$i.log"
done
