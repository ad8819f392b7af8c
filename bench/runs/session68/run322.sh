#!/usr/bin/env bash
# Run 322 (session 68): session 67's prepared run as written (`bench/runs/session67/run322.sh`:
# PSMEM with the row maxima between S_{t+1}'s k-steps, its setup and prediction in its header),
# then, only where the card is an H200, the benchmark's tables of the tree's default kernels
# (the last H200 tables are run 283's, session 54; the patched build's default kernels are the
# tree's, cubin for cubin).
set -uo pipefail
bash bench/runs/session67/run322.sh
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  source bench/runs/common.sh
  BENCH_TIMEOUT=300 bench_logged
  pack_out tables
fi
