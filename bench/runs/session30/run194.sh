#!/usr/bin/env bash
# Run 194 (session 30): the paged-prefill table (bench.py --paged-prefill-only) with 95bd9e7's
# build, whose d = 128 kernels read a visit's block-table entries at once for pages under 64 keys.
# (Rewritten after the run to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s.)
source bench/runs/common.sh
precompile
step "paged-prefill table"
BENCH_NAME=bench PYTHONUNBUFFERED=1 timeout 200 python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" --paged-prefill-only > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$LOG"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv > "$OUT/smi.log" 2>&1
step done
