#!/usr/bin/env bash
# Run 272 (prepared in session 52, not yet run; either card): what run 271 left of the portable
# decode kernel's row tiles (88e70ff):
# 1. the GPU tests under the A100 emulation (run 271 stopped at its 200 s limit after 8 passed;
#    the tile-by-tile test, whose 48-row case at d = 256 runs as two 32-row tiles, did not run);
# 2. memcheck over the dense and tile-by-tile tests under the 100 KB emulation at d = 128 (the
#    64-row case as two tiles), then under the A100 emulation at d = 256, as time allows.
# Build first: bash scripts/build-device.sh (carry target/device).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
precompile
timeout 60 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
emulated_gpu_tests 167936 64,128,256 a100 40,96,160
for emu in "102400 128" "167936 256"; do
  set -- $emu
  left=$((590 - SECONDS))
  if [ "$left" -lt 60 ]; then
    echo "memcheck at $1 bytes per SM left out ($SECONDS s)" | tee -a "$LOG"
    continue
  fi
  emulated_memcheck "$1" "$2" "$left"
done
