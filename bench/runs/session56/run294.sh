#!/usr/bin/env bash
# Run 294 (session 56): the P V overlap on by default (its kernels are run 293's switched-on ones
# to the byte: scripts/cubin-diff.py, 36 sm_90a prefill cubins). The benchmark's tables twice on
# one machine: BLASST_PREFILL_PV_OVERLAP=0 (the kernels before session 56), then the default;
# each next to PyTorch's flash and cuDNN in its own run, with issues 5 and 6's target tables.
# Build: bash scripts/build-device.sh; carry target/device.
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
BLASST_PREFILL_PV_OVERLAP=0 precompile
precompile
step "tables with BLASST_PREFILL_PV_OVERLAP=0"
BLASST_PREFILL_PV_OVERLAP=0 BENCH_TIMEOUT=200 bench_logged
for f in bench.json bench.log targets.md; do mv "$OUT/$f" "$OUT/off-$f"; done
rm -f "$OUT"/*.png "$OUT/smi.log"
step "tables, default (overlap on)"
BENCH_TIMEOUT=200 bench_logged
rm -f "$OUT"/*.png
