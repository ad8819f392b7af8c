#!/usr/bin/env bash
# Run 186 (session 28): each Hopper prefill CTA's producer asks for the Q tile of the CTA that
# starts about one wave later (linear CTA index + %nsmid) to be brought into L2
# (cp.async.bulk.prefetch.tensor), after issuing its own first K/V copies. target/device = the
# change, target/device-base = fd52ccf.
# Prediction (run 185: the prologue is 1.7-1.8 us, part of it Q from DRAM): dense and skip both
# faster by up to ~0.5 us per CTA: +0.5-1.5 % at 4K, +0.3-0.8 % at 8K, ~0 at 16K-32K; the
# skip-over-dense ratios +0.2-0.4 points at 4K.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
L="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$L"; }
step precompile
timeout 60 target/device/blasst precompile --filter prefill90 > /dev/null 2>&1 || timeout 100 target/device/blasst precompile > /dev/null 2>&1
timeout 100 target/device-base/blasst precompile --filter prefill90 > /dev/null 2>&1 || timeout 100 target/device-base/blasst precompile > /dev/null 2>&1
step "A/B non-causal 4K-32K"
timeout 150 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so --noncausal > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$L"
step "A/B 8K/16K non-causal, 8K/32K causal"
timeout 150 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so >> "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$L"
step check_prefill
timeout 60 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$L" 2>&1; echo "check_prefill exit $?" | tee -a "$L"
grep -E "^BAD|mismatches" "$L" | tail -2
step "gpu tests: dense, tile by tile, bit-identical, many sequences"
timeout 150 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile skip_kernel_that_skips_nothing more_sequences \
  > "$OUT/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$L"
grep -E "test result|panicked" "$OUT/gpu-tests.log" | head -3 | tee -a "$L"
grep -E "dense|nothing|speedup" "$OUT/ab.log"
step done
