#!/usr/bin/env bash
# Run 135: run 134's benchmark again on another GPU lease (the same tree and build), to see how far
# the targets' rows at 50 % and 70 % move from lease to lease.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
SKIP_TESTS=1 SKIP_SANITIZER=1 BENCH_TIMEOUT=300 scripts/device-check.sh > /dev/null 2>&1
tail -4 "$OUT/run.log"
