#!/usr/bin/env bash
# Run 279 (session 54, either card): where the d = 256 Hopper prefill kernel's time goes, beside
# d = 128's (0.81-0.94x SDPA against 1.6-1.75x flash at d = 128; README: "most likely S's
# shared-memory operands"). Reasoning to test: at d = 256 a consumer warpgroup's S = Q K^T of a
# 64-key visit is m64n64k16 wgmmas with both operands in shared memory, 4 KB read per 131 kFLOP,
# i.e. at the tensor cores' peak ~128 B/clk, the shared memory's whole bandwidth; P V (V only,
# 8 KB per 524 kFLOP) half of it; the TMA writes of K and V on top. So the SM's shared-memory
# pipe would be near saturation at d = 256 and well below it at d = 128 (S over 128 keys: n128,
# 6 KB per 262 kFLOP). Nsight Compute on one dense prefill each (S = 8K, 32 heads,
# non-causal): SpeedOfLight, ComputeWorkloadAnalysis (pipe utilisation), MemoryWorkloadAnalysis
# (+ tables: shared memory wavefronts), WarpStateStats, SourceCounters (stall reasons).
set -uo pipefail
source bench/runs/common.sh
run_start
step "ncu prefill d = 128 and d = 256 (dense, 8K)"
timeout 240 ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy \
  -k "regex:prefill90" -c 2 -o /tmp/dims python3 bench/profile_one.py target/device/libblasst.so prefill-dims > "$OUT/dims-ncu.log" 2>&1
echo "ncu exit $?" | tee -a "$LOG"
tail -3 "$OUT/dims-ncu.log"
ncu -i /tmp/dims.ncu-rep --page details --csv > "$OUT/dims-details.csv" 2>/dev/null
ncu -i /tmp/dims.ncu-rep --page raw --csv > "$OUT/dims-raw.csv" 2>/dev/null
ncu -i /tmp/dims.ncu-rep --page source --csv --print-source sass > /tmp/dims-src.csv 2>/dev/null
python3 bench/ncu_stalls.py /tmp/dims-src.csv 25 > "$OUT/dims-stalls.log" 2>&1
grep -iE "Duration|Compute \(SM\) Throughput|Memory Throughput|Shared|Tensor|Pipe|Issued Warp|No Eligible|Warp Cycles Per Issued|Registers|Bank" \
  "$OUT/dims-details.csv" | cut -c1-240 | head -60
grep -E "^=====" -A1 "$OUT/dims-stalls.log"
# Metric names this ncu knows for wgmma and shared memory (for a later run's --metrics).
ncu --query-metrics --chip gh100 2>/dev/null | grep -iE "gmma|mem_shared|pipe_shared|tensor_op" | head -60 > "$OUT/metric-names.log"
wc -l "$OUT/metric-names.log"
