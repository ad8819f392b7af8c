#!/usr/bin/env bash
# Run 168 (session 25): probe of three consumer warpgroups at d = 128 (BLASST_PREFILL90_WGS=3:
# 192-row CTAs, two ring slots, P V retired before S is issued; the skip variant spills 292 bytes
# and ptxas serialises its wgmmas, C7515) and of the P-V-first order alone with two warpgroups
# (BLASST_PREFILL90_PV_FIRST=1), against the default build; check_prefill with three warpgroups.
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
step check_prefill-wgs3
BLASST_PREFILL90_WGS=3 timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$LOG" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches" "$LOG" | head
step "ab d128"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/ab_prefill.py target/device/libblasst.so target/device-alt/libblasst.so:BLASST_PREFILL90_WGS=3 target/device-pv/libblasst.so:BLASST_PREFILL90_PV_FIRST=1 > "$OUT/ab-d128.log" 2>&1
echo "ab exit $?" | tee -a "$OUT/ab-d128.log" "$LOG"
step done
