#!/usr/bin/env bash
# Run 307 (session 62): the int-vs-float GPU test again, its inputs mended a second time (run 306:
# the zero key in every negative block of KV head 1 kept those blocks, so nothing was skipped and
# the child's own check failed at d = 64 before any comparison; now only every other negative
# block has one, and a CPU-side test checks that every call skips).
# Build: scripts/build-device.sh (the tree); carry target/device.
set -uo pipefail
source bench/runs/common.sh
run_start
gpu_tests_named "int vs float maxima (every head dim)" integer_row_maxima
pack_out logs
