#!/usr/bin/env bash
# Run 90: why the wide decode kernel runs at 2.6 TB/s and skips no faster: Nsight Compute stall
# samples of its dense and skip calls, pipeline depths, and the narrow kernel at 8 / 16 rows.
OUT=${OUT:-/tmp/out}
export BLASST_CACHE_DIR=/tmp/blasst-cache
L=target/device/libblasst.so
{
timeout 200 ncu --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy -k regex:decode90w -c 2 -o /tmp/rep python3 bench/profile_one.py $L decode-wide 2>&1 | tail -3
ncu -i /tmp/rep.ncu-rep --page details --csv 2>/dev/null | grep -E "Duration|Throughput|Achieved Occupancy|Registers|Block Size|Issued Warp|No Eligible|Active Warps" | head -40
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > /tmp/src.csv 2>/dev/null
python3 bench/ncu_stalls.py /tmp/src.csv 25
} > "$OUT/ncu.log" 2>&1
{
for c in 3,2 8,4; do BLASST_DECODE90W=$c timeout 60 python3 bench/tune_decode.py $L --shape 4,32768,32,4,4; done
for s in 16,32768,32,8,4 16,32768,32,8,2; do timeout 60 python3 bench/tune_decode.py $L --shape $s; done
} > "$OUT/tune.log" 2>&1
head -60 "$OUT/ncu.log"; cat "$OUT/tune.log"
