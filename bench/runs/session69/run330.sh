#!/usr/bin/env bash
# Run 330 (session 69): compute-sanitizer memcheck over every GPU test of the default kernels
# (LATE_CHECK on since session 68; the last memcheck of the prefill kernels before it was run 293's,
# session 55, with the P V overlap). LATE_CHECK moves a vote and a branch, no memory access, so the
# prediction is 0 errors. ~190 s on the H200 (common.sh), here with what is left of the session's
# device time.
set -uo pipefail
source bench/runs/common.sh
run_start
MEMCHECK_TIMEOUT=230 memcheck
pack_out logs
