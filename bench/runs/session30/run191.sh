#!/usr/bin/env bash
# Run 191 (session 30): paged prefill's block-table reads made before the boxes they feed (all
# pages of a visit's chunks read at once, then the boxes issued; four at a time with 32-register
# producers) against a88bf34 (target/device-base, which reads one page, issues its boxes, then
# reads the next). Timing-only diagnostic alongside at d = 128 16-key pages: target/device-notable
# never reads the table (page = logical page; wrong output), the ceiling of what the reads cost.
# Paged check, interleaved A/Bs, then the GPU tests and the no-TMA tests with the new build.
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
step "ab d128 page 16 (with the no-table diagnostic)"
PYTHONUNBUFFERED=1 timeout 110 $AB target/device-notable/libblasst.so --page=16 > "$OUT/ab.log" 2>&1
step "ab d128 page 64"
echo "===== d128 page 64" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 60 $AB --paged >> "$OUT/ab.log" 2>&1
step "ab d256 page 16"
echo "===== d256 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 70 $AB --d256 --page=16 >> "$OUT/ab.log" 2>&1
step "ab d64 page 16"
echo "===== d64 page 16" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 50 $AB --d64 --page=16 >> "$OUT/ab.log" 2>&1
step "gpu tests (all)"
timeout 150 target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
rc=$?; echo "gpu tests exit $rc" | tee -a "$LOG"; grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step "gpu tests, BLASST_PREFILL_TMA=0 (dense, tile-by-tile)"
BLASST_PREFILL_TMA=0 timeout 100 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/gpu-tests.log" 2>&1
echo "gpu tests (no TMA) exit $?" | tee -a "$LOG"; grep -E "test result" "$OUT/gpu-tests.log" | tail -1 | tee -a "$LOG"
step done
