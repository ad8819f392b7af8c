#!/usr/bin/env bash
# Run 302 (session 59; ran on an H100: bench/RESULTS.md "Session 59"): the benchmark's tables of the tree as it stands (the default kernels are
# run 294's: the P V overlap on since session 56; S_AHEAD and EARLY_PROBE gone, every sm_90a
# prefill cubin the same as 2a7ae8f's), next to PyTorch's flash and cuDNN, with issues 5 and 6's
# target rows. Asked for an H200 (the current tables, run 283, are an H200's of the kernels
# before the overlap); whatever GPU runs it is named in run.log.
# Build: scripts/build-device.sh; carry target/device.
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
precompile
BENCH_TIMEOUT=300 bench_logged
rm -f "$OUT"/*.png
