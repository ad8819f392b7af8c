#!/usr/bin/env bash
# Run 109: the Hopper prefill loop carries its slots' shared addresses (no S2UR SR_CgaCtaId in
# any d <= 128 dense/skip loop). check_prefill, the prefill GPU tests (Hopper kernels; and the
# cp.async path), then an interleaved A/B of 892cb11 (device-new) against it (device-v1).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$L" 2>&1; echo "check_prefill exit $?" | tee -a "$L"
grep -E "^BAD|mismatches" "$L" | head -5
timeout 240 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions skip_kernel_that calibration kv_shared > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$L"
grep -E "^test |test result" "$OUT/gpu_tests.log" | tail -8
BLASST_PREFILL_TMA=0 timeout 120 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile >> "$OUT/gpu_tests.log" 2>&1; echo "gpu tests (no TMA) exit $?" | tee -a "$L"
grep -E "test result" "$OUT/gpu_tests.log" | tail -1
timeout 200 python3 bench/ab_prefill.py target/device-new/libblasst.so target/device-v1/libblasst.so > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"
timeout 200 python3 bench/ab_prefill.py target/device-new/libblasst.so target/device-v1/libblasst.so --noncausal > "$OUT/ab_nc.log" 2>&1; echo "ab exit $?" >> "$OUT/ab_nc.log"
cat "$OUT/ab.log" "$OUT/ab_nc.log"
