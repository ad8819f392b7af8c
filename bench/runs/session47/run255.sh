#!/usr/bin/env bash
# Run 255 (session 47): run 254's 390 s limit cut memcheck off inside the tile-by-tile test at
# d = 128 as well. Here memcheck over that test's paged cases on the row-tile warps decode kernel
# alone (BLASST_TEST_CASES=1,10,12: of the first list the 1024 x 1024 causal prefill case 1, then
# 3 tokens x GQA 8 over 64- and 16-key pages; of the second list 4 x 50000, 32 rows, 64-key pages).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
BLASST_TEST_CASES=1,10,12 BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=430 memcheck skip_decisions_match_the_cpu_tile_by_tile --nocapture
