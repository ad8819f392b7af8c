#!/usr/bin/env bash
# Run 165 (session 24): the GPU tests with the portable kernels (BLASST_PREFILL_KERNEL=mma
# BLASST_DECODE_KERNEL=mma, read once per process since session 23) and the prefill tests
# without TMA, which have not run since session 22 (run 148) while the host path changed
# (sessions 23-24: contexts, switches read once, workspace sizes with no context current).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run165.log"
timeout 180 target/device/blasst precompile > "$L" 2>&1; echo "precompile exit $?" >> "$L"
BLASST_LOG=debug BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 300 target/device/gpu_tests --test-threads=1 \
  > "$OUT/run165-gpu-tests-mma.log" 2>&1; echo "gpu_tests (mma) exit $?" >> "$L"
BLASST_PREFILL_TMA=0 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile \
  >> "$L" 2>&1; echo "gpu_tests (no TMA) exit $?" >> "$L"
grep -E "test result" "$OUT/run165-gpu-tests-mma.log" >> "$L"
# Which kernels the mma pass loaded (it must be the portable ones).
grep -oE "blasst_fwd_[a-z0-9_]+" "$OUT/run165-gpu-tests-mma.log" | sort | uniq -c | sort -rn | head -20 >> "$L"
grep -E "exit|test result|blasst_fwd" "$L"
