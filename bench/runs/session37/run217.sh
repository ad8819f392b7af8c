#!/usr/bin/env bash
# Run 217 (session 37): scripts/device-check.sh's benchmark (bench/bench.py, the tables of
# bench/RESULTS.md) and the head-dim-256 timings on c3dd425's build, right after run 216 on the
# same lease.
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
