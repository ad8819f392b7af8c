#!/usr/bin/env bash
# Run 306 (session 61): run 305's int-vs-float GPU test again, its inputs mended (run 305's
# failed in its own input check, before any kernel ran: keys of -8 left some d = 256 scores of
# KV head 0 above zero; now +-16, at least 16 standard deviations), then the benchmark's tables
# of the tree with INT_MAXIMA (on whatever GPU comes; the name is logged).
# Build: scripts/build-device.sh with INT_MAXIMA on (the tree); carry target/device.
set -uo pipefail
source bench/runs/common.sh
run_start
gpu_tests_named "int vs float maxima (every head dim)" integer_row_maxima
# BENCH=0 (a short budget): the test alone.
[ "${BENCH:-1}" = 0 ] || BENCH_TIMEOUT=300 bench_logged
pack_out logs
