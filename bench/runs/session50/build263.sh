#!/usr/bin/env bash
# Builds run 263's two builds here (no GPU needed): target/device-base = the tree,
# target/device = the tree with bench/runs/session49/merge-splits-by-warps.patch applied; the
# patch is taken back out afterwards (also when a build fails), so the tree is left as it was.
# Then: the device tool's run with carry [target/device, target/device-base] and the command
# `OUT=$OUT bash bench/runs/session50/run263.sh`.
# (Run in session 51; the patch has been in the tree since 92d0e6f, so this script now stops
# where it applies it: a record of run 263, not a step to repeat.)
set -euo pipefail
cd "$(dirname "$0")/../../.."
patch=bench/runs/session49/merge-splits-by-warps.patch
git diff --quiet -- kernels/merge.cu || { echo "kernels/merge.cu has uncommitted changes: not touching it" >&2; exit 1; }
bash scripts/build-device.sh > /tmp/build263-base.log 2>&1
rm -rf target/device-base && cp -r target/device target/device-base
git apply "$patch"
trap 'git apply -R "$patch"' EXIT
bash scripts/build-device.sh > /tmp/build263-patch.log 2>&1
echo "built target/device-base (tree) and target/device (tree + $patch)"
