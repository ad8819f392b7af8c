#!/usr/bin/env bash
# Run 149 (session 22): where the GPU tests' time goes (run 147: 244 s for the 12 Hopper-kernel
# tests, run 144: 184 s for 11), one test per process, in the order of the harness, with a
# warm disk cache (run 147's NVRTC compiles are gone with the machine: the first test pays them).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
for t in $(target/device/gpu_tests --list 2>/dev/null | sed -n 's/: test$//p'); do
  s=$(date +%s%N)
  timeout 200 target/device/gpu_tests --exact "$t" --test-threads=1 > "$OUT/t.log" 2>&1
  rc=$?
  printf "%-60s %6d ms exit %d\n" "$t" $((($(date +%s%N) - s) / 1000000)) $rc
done | tee "$OUT/run.log"
# The CPU backend on the GPU machine's 16 cores: session 21's build against this one.
for b in target/device-s21/blasst target/device/blasst; do
  for a in "" "--causal" "--threshold 0.001"; do
    echo "$b $a: $($b bench --device cpu --seqlen 4096 --heads 8 $a 2>&1 | tail -1)"
  done
done | tee -a "$OUT/run.log"
