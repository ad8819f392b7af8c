#!/usr/bin/env bash
# Run 138: the bench scripts after skipped_fraction/skip_row_name became shared (a refactor, no
# timing question): bench.py --quick, ab_decode, head_dim_256 (dense_and_skip), skip_stats_cost and
# the start of ab_prefill run and report skipped fractions.
# (Its "stats exit 1" is head -2 closing the pipe on skip_stats_cost.py's third line.)
set -uo pipefail
OUT=${OUT:-/tmp/o}; mkdir -p $OUT
export BLASST_CACHE_DIR=/tmp/blasst-cache
L=target/device/libblasst.so
timeout 150 python3 bench/bench.py --lib $L --out $OUT --quick > $OUT/bench.log 2>&1; echo "bench exit $?"
python3 bench/report.py $OUT/bench.json | grep -E "skip" | head -12
timeout 40 python3 bench/ab_decode.py $L --size 16x32768 > $OUT/abd.log 2>&1; echo "ab_decode exit $?"; grep skip $OUT/abd.log | head -3
timeout 60 python3 bench/head_dim_256.py $L > $OUT/d256.log 2>&1; echo "d256 exit $?"; grep -E "^prefill S=4096 causal=0 kernel=default|^decode 1x" $OUT/d256.log | head -2
timeout 60 python3 bench/micro/skip_stats_cost.py $L 2>&1 | head -2; echo "stats exit $?"
timeout 45 python3 bench/ab_prefill.py $L > $OUT/abp.log 2>&1; echo "ab_prefill exit $? (124 = cut short on purpose)"; grep -m2 "skip  " $OUT/abp.log
