#!/usr/bin/env bash
# Run 304 (session 60): the benchmark's tables of the tree (6c4c9bd's kernels; the default P V
# overlap of session 56, never yet tabled on an H200), with issues 5 and 6's target rows, on an
# H200 only: on any other GPU it stops after naming it (H100 tables of these kernels: runs 294
# and 302), so that a lease of the wrong GPU costs only its start.
# Build: scripts/build-device.sh at 6c4c9bd (= c3c7000's kernels and sources); carry target/device.
set -uo pipefail
source bench/runs/common.sh
only_on H200
precompile
BENCH_TIMEOUT=300 bench_logged
