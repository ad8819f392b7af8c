#!/usr/bin/env bash
# Run 309 (session 64): the interleaved A/B over 32-key pages, which run 307 did not time (its
# tile-by-tile case 15 tested them): 32-key pages take the `_paged_small` kernels without the P V
# overlap since 49261af, on the strength of run 294's 16-key rows alone. Predicted: between the
# 16-key pages' gain (run 307: dense +3.9..+8.4 %, Skip-Softmax +3.1..+10.5 %) and 64-key pages'
# none: dense +1..+4 %, Skip-Softmax +1..+5 %; below 0 would call for 32-key pages to take the
# overlapped kernels again. Then, only where the card is an H200, the benchmark's tables (its
# first since run 283, before the overlap, the integer maxima and the small-page kernels).
# Build: target/device-base = 90e1648, target/device = the tree (as run 307); carry both.
set -uo pipefail
source bench/runs/common.sh
precompile_ab
AB_TIMEOUT=60 ab "32-key pages" --page=32
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  BENCH_TIMEOUT=200 bench_logged
fi
pack_out logs
