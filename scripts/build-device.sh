#!/usr/bin/env bash
# Builds what scripts/device-check.sh runs on the GPU machine into target/device:
# the GPU test binary, the blasst tool and libblasst.so (carry target/device).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
exe=$(cargo test --release --test gpu --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="gpu": print(m["executable"])')
mkdir -p target/device
cp "$exe" target/device/gpu_tests
cp target/release/blasst target/device/blasst
cp target/release/libblasst.so target/device/libblasst.so
strip --strip-debug target/device/gpu_tests target/device/blasst target/device/libblasst.so || true
ls -la target/device
