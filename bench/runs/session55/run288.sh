#!/usr/bin/env bash
# Run 288 (session 55, either card): on an H200, run 287 (the GPU tests, tables and memcheck of
# the tree as it stands). Otherwise, a diagnostic of the gap to cuDNN (blasst dense 0.85x cuDNN at
# 4K, 0.97x at 16K, non-causal, run 283): Nsight Compute over `bench/profile_one.py sdpa-prefill`
# (cuDNN's SDPA kernel, then blasst dense, at S = 4K and 16K, two calls each): every kernel's
# launch (grid, block, cluster, registers, shared memory), speed of light, memory, occupancy and
# warp states, at Nsight Compute's locked base clock, into $OUT/sdpa-details.csv.
set -uo pipefail
source bench/runs/common.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*) exec bash bench/runs/session55/run287.sh ;;
esac
run_start
step "ncu sdpa-prefill (every kernel)"
timeout 400 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
  --section ComputeWorkloadAnalysis --section WarpStateStats -c 40 -o /tmp/sdpa \
  python3 bench/profile_one.py target/device/libblasst.so sdpa-prefill > "$OUT/sdpa-ncu.log" 2>&1
echo "ncu exit $?" | tee -a "$LOG"
ncu -i /tmp/sdpa.ncu-rep --page details --csv > "$OUT/sdpa-details.csv" 2>/dev/null
grep -E '"Duration"' "$OUT/sdpa-details.csv" | cut -c1-240 | tee -a "$LOG"
