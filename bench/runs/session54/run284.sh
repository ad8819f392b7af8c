#!/usr/bin/env bash
# Run 284 (session 54, either card): scripts/device-check.sh's new racecheck/synccheck block, its
# own text (cut out of the script with awk, as it was dry-run locally with a stub), on the tree
# with the every-lane arrivals (6d9ebd7's kernels): expected 0 hazards and 0 errors in all four.
set -uo pipefail
source bench/runs/common.sh
run_start
awk '/if \[ "\$\{SKIP_RACECHECK:-0\}" != 1 \]; then/,/^  fi$/' scripts/device-check.sh > /tmp/block.sh
source /tmp/block.sh
grep -E "^=====|SUMMARY|test result" "$OUT/memcheck.log"
