#!/usr/bin/env bash
# Run 175 (session 26): the device check of the tree with TMA paged prefill (also with
# num_pages = 0: maps of i32::MAX pages) - precompile, check_prefill, check_paged_prefill (72
# cases, num_pages given and 0, and their timing), all GPU tests, threads, contexts, no-TMA
# tests, memcheck over all three binaries, demo - then bench.py's new paged-prefill rows alone
# (the contiguous d = 128 cubins are byte-identical to run 163's, whose tables stand).
SKIP_MMA_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh
echo "=== paged prefill bench ($(date +%T))" | tee -a "$OUT/run.log"
PYTHONUNBUFFERED=1 BENCH_NAME=bench-paged-prefill timeout 150 python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" --paged-prefill-only > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$OUT/run.log"
python3 bench/report.py "$OUT/bench-paged-prefill.json" | grep -A 20 "paged cache"
grep -E "num_pages given|bad cases" "$OUT/run.log"
