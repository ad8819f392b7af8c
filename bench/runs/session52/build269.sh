#!/usr/bin/env bash
# Builds run 269's two builds here: target/device-base = the tree (libblasst.so and the blasst
# tool), target/device = the tree with bench/runs/session52/split-s-rs.patch; the patch is taken
# back out afterwards (also when a build fails). Then: the device tool's run with carry
# [target/device, target/device-base] and `OUT=$OUT bash bench/runs/session52/run269.sh`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
patch=bench/runs/session52/split-s-rs.patch
git diff --quiet -- kernels/prefill_sm90.cu || { echo "kernels/prefill_sm90.cu has uncommitted changes: not touching it" >&2; exit 1; }
bash scripts/build-device.sh > /tmp/build269-base.log 2>&1
rm -rf target/device-base && mkdir -p target/device-base
cp target/device/libblasst.so target/device/blasst target/device/build-info.txt target/device-base/
git apply "$patch"
trap 'git apply -R "$patch"' EXIT
bash scripts/build-device.sh > /tmp/build269-patch.log 2>&1
echo "built target/device-base (tree) and target/device (tree + $patch)"
