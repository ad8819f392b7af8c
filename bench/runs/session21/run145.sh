#!/usr/bin/env bash
# Run 145 (session 21): `blasst precompile` on the H200 (architecture from the GPU), then a demo
# whose kernels the library finds in that disk cache (BLASST_LOG=debug says so).
set -uo pipefail
export BLASST_CACHE_DIR=/tmp/blasst-precompiled
rm -rf "$BLASST_CACHE_DIR"
target/device/blasst precompile --filter prefill90_bf16_d128 2>&1 | tail -3
BLASST_LOG=debug target/device/blasst demo --seqlen 1024 --heads 8 2>&1 | grep -E "disk cache|compiled|skipped|dense" | head -12
echo "demo exit ${PIPESTATUS[0]}"
