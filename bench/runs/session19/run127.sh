#!/usr/bin/env bash
# Run 127 (diagnostic): run 126 again under Nsight Compute (kernels serialised, clocks not
# locked): the decode kernel's and the merge kernel's own durations, DRAM throughput and SM
# activity, shipped library against the balanced build (target/device-bal).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 300 ncu --clock-control none -k regex:"decode90|merge" \
  --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,sm__cycles_elapsed.avg,launch__grid_size \
  --csv python3 bench/runs/session19/run127_calls.py target/device-head/libblasst.so target/device-bal/libblasst.so > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "exit $?" >> "$OUT/ncu.err"
tail -5 "$OUT/ncu.err"
python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]
idx = {h: i for i, h in enumerate(hdr)}
for r in rows[1:]:
    print(r[idx["ID"]], r[idx["Kernel Name"]][:40], r[idx["Metric Name"]], r[idx["Metric Value"]])
PY
