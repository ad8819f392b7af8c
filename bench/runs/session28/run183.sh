#!/usr/bin/env bash
# Run 183 (session 28): the benchmark's tables in fp16 (bench.py --dtype fp16: prefill, paged
# prefill, decode, speculative decode; blasst next to PyTorch flash, cuDNN and SDPA as in the
# bf16 tables), on run 181's build (fd52ccf; no kernel changed since run 179). The first fp16
# timings of the Hopper kernels: the tests have run fp16 since session 4, the tables never.
# Prediction: within a few % of the bf16 tables (run 179) for blasst and for PyTorch alike
# (wgmma and HMMA run f16 and bf16 at the same rate; the exp2/convert path is the same).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$L"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> "$L" 2>&1
step precompile
timeout 120 target/device/blasst precompile > /dev/null 2>&1; echo "precompile exit $?" | tee -a "$L"
step "benchmark, fp16"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -l 1 > "$OUT/smi.log" 2>&1 &
smi=$!
PYTHONUNBUFFERED=1 BENCH_NAME=bench-fp16 timeout 480 python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" --dtype fp16 > "$OUT/bench.log" 2>&1
echo "bench exit $?" | tee -a "$L"
kill $smi 2>/dev/null
python3 bench/report.py "$OUT/bench-fp16.json" > "$OUT/tables.md" 2>&1
head -70 "$OUT/tables.md"
step done
