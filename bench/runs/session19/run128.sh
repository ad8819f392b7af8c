#!/usr/bin/env bash
# Run 128 (diagnostic): SDPA's decode kernels next to ours under Nsight Compute on one GPU lease
# (kernels serialised, clocks not locked): duration, grid, DRAM throughput, DRAM bytes read.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 300 ncu --clock-control none \
  --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,launch__grid_size,launch__block_size \
  --csv python3 bench/runs/session19/run128_calls.py target/device-head/libblasst.so > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "exit $?" >> "$OUT/ncu.err"
tail -3 "$OUT/ncu.err"
python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]
idx = {h: i for i, h in enumerate(hdr)}
cur = None
for r in rows[1:]:
    if r[idx["ID"]] != cur:
        cur = r[idx["ID"]]
        print()
        print(cur, r[idx["Kernel Name"]][:70], end="")
    print(f" | {r[idx['Metric Name']].split('__')[1][:22]} {r[idx['Metric Value']]}", end="")
print()
PY
