#!/usr/bin/env bash
# Run 323 (session 68): the benchmark's tables of the tree's default kernels, only where the card
# is an H200 (the last H200 tables are run 283's, session 54, before the P V overlap and the
# integer maxima; the H100 tables of these kernels are runs 315 and 320, session 67). On any other
# card it prints the card and stops. Predicted on an H200, against run 283: prefill dense
# +3..+8 %, the skip-over-dense ratios at ~50 % and ~70 % lower by 0.02-0.06 (dense gained, skipped
# visits did not), decode as run 283 within 1 %.
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: nothing run" | tee -a "$LOG"; exit 0; }
precompile
BENCH_TIMEOUT=300 bench_logged
pack_out tables
