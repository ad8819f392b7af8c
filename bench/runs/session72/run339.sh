#!/usr/bin/env bash
# Run 339 (session 72): run 337 (session 71's prepared run) cut to fit the ~420 s of device
# time that nine failed starts left this session, each part packed as soon as it ends so that a
# call cut by its limit still brings back what finished. On an H200: the bf16 tables of today's
# kernels (none since run 283, session 54, before the P V overlap). Elsewhere: the prefill tables
# in fp16 (the last are run 183's, session 28), then `memcheck_children`. Predictions as in
# run337.sh: on an H200 the bf16 ratios within 0.05 of run 329's H100 ones (~50 % 1.14-1.26x,
# ~70 % 1.31-1.45x), dense above run 283's 458-593 TFLOP/s; on an H100 the fp16 ratios within
# 0.05 of run 329's bf16 ones, dense 0-7 % below; three log files with --target-processes all,
# one without it if the tool follows only the application by default.
set -uo pipefail
source bench/runs/common.sh
run_start
if gpu_is H200; then
  BENCH_TIMEOUT=240 bench_logged
  pack_out run339-bench
else
  mkdir -p "$OUT/fp16"
  OUT="$OUT/fp16" BENCH_TIMEOUT=150 bench_logged --dtype fp16 --prefill-only
  pack_out run339-fp16
  MEMCHECK_TIMEOUT=90 memcheck_children
  pack_out run339-sanitizer
fi
