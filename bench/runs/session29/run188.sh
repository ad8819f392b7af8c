#!/usr/bin/env bash
# Run 188 (session 29): paged prefill at d >= 128 with two producer warpgroups (two teams of four
# warps; warp w of a team issues K's (w even) or V's (w odd) TMA boxes of column block w / 2, so a
# visit's 32 boxes at d = 128 with 16-key pages go out from four threads, eight each, instead of two
# threads, sixteen each; the cp.async path copies with 128 threads per team) against 8914484
# (target/device-base). Run 187's diagnostic: without V's boxes, 16-key pages gained nothing at 8K,
# so the thread that issues K's sixteen boxes one after another is the suspect.
# Paged check, interleaved A/Bs (d = 128 16- and 64-key pages, d = 256 and d = 64 16-key pages),
# then the GPU tests and the no-TMA tests (the paged cp.async path) with the new build.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step precompile
timeout 120 target/device/blasst precompile > /dev/null 2>&1; echo "precompile exit $?" | tee -a "$LOG"
step "paged prefill check"
timeout 90 python3 bench/check_paged_prefill.py target/device/libblasst.so > "$OUT/check.log" 2>&1
rc=$?; echo "check exit $rc" | tee -a "$LOG"; grep -E "^BAD|bad cases|num_pages given" "$OUT/check.log" | tail -4 | tee -a "$LOG"
[ $rc = 0 ] || exit 1
AB="python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so"
step "ab d128 page 16"
PYTHONUNBUFFERED=1 timeout 70 $AB --page=16 > "$OUT/ab.log" 2>&1
step "ab d128 page 64"
echo "===== d128 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 60 $AB --paged >> "$OUT/ab.log" 2>&1
step "ab d256 page 16"
echo "===== d256 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 60 $AB --d256 --page=16 >> "$OUT/ab.log" 2>&1
step "ab d64 page 16"
echo "===== d64 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 50 $AB --d64 --page=16 >> "$OUT/ab.log" 2>&1
step "gpu tests (all)"
timeout 150 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "gpu tests, BLASST_PREFILL_TMA=0 (dense, tile-by-tile)"
BLASST_PREFILL_TMA=0 timeout 110 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/gpu-tests.log" 2>&1
echo "gpu tests (no TMA) exit $?" | tee -a "$LOG"; grep -E "test result" "$OUT/gpu-tests.log" | tail -1 | tee -a "$LOG"
step done
