#!/usr/bin/env bash
# Run 172 (session 25): run 171 again after fixing the new paged GPU test case (it had given a
# padded-query sequence fewer rows than max_seqlen_q, which the padded layout cannot express:
# causal alignment then differs; bench/check_paged_prefill.py found the TMA paged kernel right on
# every case, batch 1, in the call before). Tests first; the A/Bs only if they pass.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step "gpu tests (dense, tile by tile)"
timeout 120 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests.log" 2>&1
rc=$?
echo "gpu tests exit $rc" | tee -a "$OUT/gpu-tests.log" "$LOG"
grep -E "test result|panicked" "$OUT/gpu-tests.log" | head -3 | tee -a "$LOG"
[ $rc = 0 ] || exit 1
step "ab paged d64"
PYTHONUNBUFFERED=1 timeout 50 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --d64 --paged > "$OUT/ab-paged.log" 2>&1
step "ab paged d128"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --paged >> "$OUT/ab-paged.log" 2>&1
step done
