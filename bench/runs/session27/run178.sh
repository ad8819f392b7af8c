#!/usr/bin/env bash
# Run 178 (session 27): the device check of e86198b (paged prefill's K and V boxes from two
# threads) - precompile, check_prefill, check_paged_prefill, all GPU tests, threads, contexts,
# no-TMA tests, memcheck over all three binaries, demo - then bench.py's paged-prefill rows alone
# (the first GPU run of its prefill_skip_fields helper; the contiguous cubins are unchanged).
SKIP_MMA_TESTS=1 SKIP_BENCH=1 bash scripts/device-check.sh
echo "=== paged prefill bench ($(date +%T))" | tee -a "$OUT/run.log"
PYTHONUNBUFFERED=1 BENCH_NAME=bench-paged-prefill timeout 150 python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" --paged-prefill-only > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$OUT/run.log"
python3 bench/report.py "$OUT/bench-paged-prefill.json" | grep -A 20 "paged cache"
grep -E "num_pages given|bad cases|exit" "$OUT/run.log"
echo "=== done ($(date +%T))" | tee -a "$OUT/run.log"
