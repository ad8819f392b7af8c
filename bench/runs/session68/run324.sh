#!/usr/bin/env bash
# Run 324 (session 68): where today's skipped prefill visit spends its cycles. Session 58's visit
# profile (run 298) was of the loop before the integer row maxima (session 61) and the retire of
# P V_{t-1} before the softmax's branches (session 66); bench/micro/visit_profile.patch is
# refreshed for today's tree (applied for the build only). One CTA of the 8K non-causal call,
# consumer warp 0 of each warpgroup, cycles per 128-key visit by phase.
# Predicted (run 298 read 1478-1532 cycles for a skipped visit at ~50 %: issue 513-521, S wait
# 165-204, row maxima 415-421, votes 139-158, rest 129-135): a skipped visit 1400-1550, its row
# maxima 250-350 (the integer maxima), the other phases as run 298's within ~50 cycles.
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
step "visit profile (8K non-causal, one CTA)"
timeout 120 python3 bench/micro/profile_visits.py target/device/libblasst.so > "$OUT/visits.log" 2>&1
echo "profile exit $?" | tee -a "$LOG"
cat "$OUT/visits.log" | tee -a "$LOG" > /dev/null
