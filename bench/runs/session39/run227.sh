#!/usr/bin/env bash
# Run 227 (session 39, diagnostic): why is a paged dense decode call at one CTA per SM slower over
# 64-key pages than over 256-key pages when both hold the contiguous cache's bytes in its order
# (runs 223-226)? Nsight Compute on 1 x 128K, contiguous / 64-key / 256-key pages
# (bench/profile_one.py paged-1sm; the build of 9843269's kernels): speed of light, warp states,
# memory workload, and the per-instruction stall samples (bench/ncu_stalls.py).
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 110 ncu --profile-from-start off --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --section MemoryWorkloadAnalysis -k regex:decode90 -o /tmp/rep \
  python3 bench/profile_one.py target/device/libblasst.so paged-1sm > "$OUT/run227-ncu.log" 2>&1
echo "ncu exit $?" | tee -a "$OUT/run227-ncu.log"
ncu -i /tmp/rep.ncu-rep --page details --csv > "$OUT/run227-details.csv" 2>/dev/null
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > /tmp/src.csv 2>/dev/null
python3 bench/ncu_stalls.py /tmp/src.csv 30 > "$OUT/run227-stalls.log" 2>&1
grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Issued Warp|No Eligible|Warp Cycles Per Issued" "$OUT/run227-details.csv" | cut -c1-200 | head -40
head -3 "$OUT/run227-stalls.log"
