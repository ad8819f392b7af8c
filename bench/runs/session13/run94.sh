#!/usr/bin/env bash
# Run 94: the final commit (a host-side guard added after run 93): prefill check, the GPU tests
# with both kernel sets, demo.
SKIP_SANITIZER=1 SKIP_BENCH=1 scripts/device-check.sh
