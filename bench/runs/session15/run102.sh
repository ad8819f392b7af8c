#!/usr/bin/env bash
# Run 102: the new GPU test (K/V heads or sequences sharing memory, stride 0), under memcheck
# too; a diagnostic A/B of run 101's multicast build (device-mc) and of the same build launching
# clusters of two CTAs without multicast (device-cl) against session 14's final build.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
echo "=== gpu test kv_shared" | tee -a "$L"
timeout 120 target/device/gpu_tests --test-threads=1 --nocapture kv_shared > "$OUT/gpu_tests.log" 2>&1; echo "gpu test exit $?" | tee -a "$L"
grep -E "^ok|test result|panicked" "$OUT/gpu_tests.log" | tail -14
echo "=== memcheck kv_shared" | tee -a "$L"
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 target/device/gpu_tests --test-threads=1 kv_shared > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$L"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -2
echo "=== A/B diagnostic" | tee -a "$L"
BLASST_LOG=debug timeout 150 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-cl/libblasst.so target/device-mc/libblasst.so --noncausal > "$OUT/ab.log" 2>&1; echo "ab exit $?" >> "$OUT/ab.log"; grep -v "^blasst:" "$OUT/ab.log"; grep "^blasst:.*cluster" "$OUT/ab.log" | sort | uniq -c | head
