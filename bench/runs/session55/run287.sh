#!/usr/bin/env bash
# Run 287 (session 55): on an H200 only (on an H100 nothing but the GPU's name is logged: runs
# 285-286 ran these on an H100), the tree as it stands (6ed0307) where issues 5 and 6 ask for it:
# every GPU test (tests/gpu.rs), gpu_threads and gpu_contexts, the benchmark's tables (~100 s in
# run 283), then memcheck over the GPU tests in what time is left (the whole suite and memcheck
# last ran on an H200 in runs 242-243, session 43).
set -uo pipefail
source bench/runs/common.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$gpu" | tee -a "$LOG"
case "$gpu" in
  *H200*) ;;
  *) echo "left out on $gpu" | tee -a "$LOG"; exit 0 ;;
esac
run_start
GPU_TESTS_TIMEOUT=300 gpu_tests
gpu_threads_contexts
BENCH_TIMEOUT=150 bench_logged
python3 bench/report.py "$OUT/bench.json" >> "$LOG" 2>/dev/null
left=$((580 - SECONDS))
if [ $left -gt 60 ]; then MEMCHECK_TIMEOUT=$left memcheck; else echo "memcheck left out: $left s left" | tee -a "$LOG"; fi
# At most 8 files come back: gpu_threads' log into the GPU tests', the targets (in run.log) and
# the plot left behind.
cat "$OUT/gpu-threads.log" >> "$OUT/gpu-tests.log" && rm -f "$OUT/gpu-threads.log"
rm -f "$OUT/targets.md" "$OUT/speedup_vs_sparsity.png"
