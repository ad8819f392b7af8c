#!/usr/bin/env bash
# Run 260 (session 48): the whole benchmark (bench/bench.py: prefill, paged prefill, decode,
# speculative decode) on the final tree, SM clock logged, on whichever card is lent.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
bench_logged  # (common.sh since the session's review: the same commands)
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
