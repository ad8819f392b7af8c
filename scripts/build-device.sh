#!/usr/bin/env bash
# Builds what scripts/device-check.sh runs on the GPU machine into target/device:
# the GPU test binaries (tests/gpu.rs, tests/gpu_threads.rs, tests/gpu_contexts.rs), the blasst tool,
# libblasst.so and examples/host_cost.rs
# (carry target/device).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
# ptxas_report too (not carried): a check of the kernels it embeds must not run a stale build.
cargo build --release --example host_cost --example ptxas_report
# The test executables' paths, from cargo's JSON messages.
cargo test --release --test gpu --test gpu_threads --test gpu_contexts --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"] in ("gpu","gpu_threads","gpu_contexts"): print(m["target"]["name"], m["executable"])' \
  > target/device-exes.txt
mkdir -p target/device
while read -r name exe; do
  if [ "$name" = gpu ]; then cp "$exe" target/device/gpu_tests; else cp "$exe" "target/device/$name"; fi
done < target/device-exes.txt
cp target/release/blasst target/device/blasst
cp target/release/libblasst.so target/device/libblasst.so
cp target/release/examples/host_cost target/device/host_cost
# What was built, for the run logs (bench/runs/common.sh `precompile` prints it): the commit, and
# whether kernels/ or src/ differed from it (a patched build for an A/B, say).
{
  echo "commit $(git rev-parse --short HEAD)"
  git diff --quiet HEAD -- kernels src Cargo.toml || echo "with uncommitted changes: $(git diff HEAD --stat -- kernels src Cargo.toml | tail -1)"
} > target/device/build-info.txt
strip --strip-debug target/device/gpu_tests target/device/gpu_threads target/device/gpu_contexts target/device/host_cost target/device/blasst target/device/libblasst.so || true
ls -la target/device
