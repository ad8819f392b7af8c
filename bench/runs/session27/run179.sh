#!/usr/bin/env bash
# Run 179 (session 27): the benchmark (bench/bench.py, all tables: the first full run since
# 252be86 moved bench_prefill's sparse rows onto prefill_skip_fields) and the head-dim-256
# timings on e86198b's build (the contiguous kernels are run 163's; the paged prefill kernels
# are session 27's), after the precompile step, check_prefill and the demo. The tests ran in run 178.
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
echo "=== done ($(date +%T))" | tee -a "$OUT/run.log"
