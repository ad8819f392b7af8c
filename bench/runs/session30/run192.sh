#!/usr/bin/env bash
# Run 192 (session 30): run 191's page reads, reworked. Run 191's build (every chunk's read and box
# issue unrolled, the table row recomputed per chunk) gained at 16-key pages but lost 1-10 % at
# 64-key pages, most where most is skipped (the producer's own time is on a skipping visit's path).
# This build: the sequence's table row once per CTA, a visit's entries at immediate offsets (one
# read for pages of 128 keys and more), the issue loop kept rolled (the chunk's page moves down
# the registers), and d = 64 (32-register producers) keeps one read per box (two or four at a time
# spilled there). Against a88bf34 (target/device-base).
# Paged check, interleaved A/Bs, the GPU tests, memcheck over the paged-prefill tests.
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
step "ab d128 page 256"
echo "===== d128 page 256" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 60 $AB --page=256 >> "$OUT/ab.log" 2>&1
step "ab d256 page 16"
echo "===== d256 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 70 $AB --d256 --page=16 >> "$OUT/ab.log" 2>&1
step "ab d256 page 64"
echo "===== d256 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 70 $AB --d256 --paged >> "$OUT/ab.log" 2>&1
step "gpu tests (all)"
timeout 150 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "memcheck (paged prefill without num_pages)"
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 target/device/gpu_tests --test-threads=1 paged_prefill_without > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$LOG"; grep -E "ERROR SUMMARY|test result" "$OUT/memcheck.log" | tail -3 | tee -a "$LOG"
step done
