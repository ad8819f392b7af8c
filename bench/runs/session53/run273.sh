#!/usr/bin/env bash
# Run 273 (session 53, either card): on an H200, session 52's run268.sh (the tree's first H200
# tables since run 243, and all GPU tests); on an H100, session 52's run272.sh (what run 271 left
# of the portable decode kernel's row tiles: the A100-emulation GPU tests and memcheck under both
# emulations). Build first: bash scripts/build-device.sh (carry target/device).
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*) exec bash bench/runs/session52/run268.sh ;;
  *) exec bash bench/runs/session52/run272.sh ;;
esac
