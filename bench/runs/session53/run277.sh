#!/usr/bin/env bash
# Run 277 (prepared in session 53, not yet run; either card): `decode-n32.patch`, the portable
# decode kernel on 32-key tiles where 64-key ones do not fit (d = 256 on GPUs of 100 KB, which
# the tree runs on the prefill plan, run 276: 3.8-22x slower than a decode kernel). Locally:
#   git apply bench/runs/session53/decode-n32.patch && bash scripts/build-device.sh
# then this script (carry target/device):
# 1. all GPU tests under the 100 KB emulation at 64/128/256, padded 40/96/160 (d = 256 decode
#    now on the 32-key kernel: dense vs CPU and float64, tile by tile vs the CPU, block_n 32
#    checked by the dense test);
# 2. memcheck over the dense and tile-by-tile tests at d = 256 under that emulation;
# 3. bench/micro/smem100k_d256.py in both processes (prediction: decode at d = 256 under the
#    emulation within 0.7-1.0x of the 64-key kernel with the GPU's own memory, against run 276's
#    0.05x / 0.26x; prefill unchanged).
# The 64-key decode kernels compile to the tree's SASS (nvdisasm, sm_80 / sm_86 / sm_90a), so
# the tree's other GPU tests stand.
set -uo pipefail
source bench/runs/common.sh
run_start
timeout 60 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
EMULATED_TIMEOUT=330 emulated_gpu_tests 102400 64,128,256 smem100k 40,96,160
emulated_memcheck 102400 256 150
smem100k_d256
