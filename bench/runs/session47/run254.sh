#!/usr/bin/env bash
# Run 254 (session 47): run 253 (bench/runs/session46/run253.sh, on an H100) passed every GPU test
# at d = 128 with the row-tile warps decode kernel over paged caches, and memcheck passed the
# dense test, but its 170 s limit cut off the tile-by-tile test under memcheck. Here: memcheck
# over the tile-by-tile decisions alone at d = 128 (its paged decode cases on the warps kernel),
# then bench/bench.py --decode-only (decode and speculative decode tables, device copy measured
# in the same run).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=390 memcheck skip_decisions_match_the_cpu_tile_by_tile
step "benchmark (decode only)"
BENCH_NAME=bench timeout 150 python3 bench/bench.py --lib target/device/libblasst.so --decode-only --out "$OUT" > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$LOG"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
