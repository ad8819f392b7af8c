#!/usr/bin/env bash
# Run 263 (session 50): session 49's prepared run 262 (bench/runs/session49/run262.sh: the merge
# kernel with the splits shared out among the warps, A/B against the tree, GPU tests at d = 64,
# 128, 256, memcheck of the dense test at d = 128), then the whole benchmark on the tree's build
# (target/device-base), SM clock logged: the first H200 tables with the warps kernel if an H200
# comes. Builds: target/device-base = the tree, target/device = the tree with
# bench/runs/session49/merge-splits-by-warps.patch applied.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
bash bench/runs/session49/run262.sh
source bench/runs/common.sh
BENCH_LIB=target/device-base/libblasst.so BENCH_TIMEOUT=240 bench_logged
