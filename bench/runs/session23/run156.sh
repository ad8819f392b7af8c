#!/usr/bin/env bash
# Run 156 (session 23): where a call's host time goes (examples/host_cost.rs), the session's
# library before (target/device-base: 48b0d82) and after reading the kernel switches once per
# process and keeping the thread's last context (target/device), alternately, three times each.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
L="$OUT/run156-host-cost.log"
for i in 1 2 3; do
  for b in device-base device; do
    echo "===== $b ($i)" >> "$L"
    timeout 60 target/$b/host_cost >> "$L" 2>&1; echo "exit $?" >> "$L"
  done
done
cat "$L"
