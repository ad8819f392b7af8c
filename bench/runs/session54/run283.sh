#!/usr/bin/env bash
# Run 283 (session 54): run 282 came on an H200, the first lent since session 43; with 426 s of
# device time left, the benchmark part of session 52's run268.sh (its GPU tests, ~335 s on an
# H200, left out) on the warm machine, target/device = 1d75cad (the tree before the decode90w
# arrival change, which run 282 timed as neutral). Given inline as this command:
source bench/runs/common.sh; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"; precompile; BENCH_TIMEOUT=230 bench_logged; python3 bench/report.py "$OUT/bench.json" 2>/dev/null | head -80; step "head dim 256"; timeout 80 python3 bench/head_dim_256.py target/device/libblasst.so > "$OUT/d256.log" 2>&1; echo "d256 exit $?" | tee -a "$LOG"; grep -E "^(prefill|decode)" "$OUT/d256.log"
