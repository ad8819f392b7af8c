#!/usr/bin/env bash
# Run 106: more than 65535 sequences per call (launch_seqs: one launch per 65535 sequences, the
# kernels read b = blockIdx.z + batch0). The GPU tests with the Hopper kernels (the new
# more_sequences_than_one_grid_holds among them), the dense and new tests with the portable
# kernels, and an interleaved prefill A/B against the tree before the change (device-base2).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
echo "=== gpu tests" | tee -a "$L"
timeout 240 target/device/gpu_tests --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$L"
grep -E "^test |test result|^ok [0-9]+ sequences|panicked" "$OUT/gpu_tests.log" | tail -14
echo "=== gpu tests, portable kernels" | tee -a "$L"
BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 90 target/device/gpu_tests --test-threads=1 --nocapture more_sequences dense_matches > "$OUT/gpu_tests_mma.log" 2>&1; echo "gpu tests (mma) exit $?" | tee -a "$L"
grep -E "test result|^ok [0-9]+ sequences|panicked" "$OUT/gpu_tests_mma.log" | tail -4
echo "=== A/B" | tee -a "$L"
timeout 90 python3 bench/ab_prefill.py target/device-base2/libblasst.so target/device/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"; cat "$OUT/ab.log"
