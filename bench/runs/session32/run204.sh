#!/usr/bin/env bash
# Run 204 (session 32): the GPU tests under both shared-memory emulations with the portable
# kernels (device-check's loop), now with the padded-head-dim test: an A100 (164 KB; head dims
# 64, 128, 256 and padded 40, 96, 160) and a GPU of 100 KB (64, 128; padded 40, 96).
source bench/runs/common.sh
precompile
emulated_gpu_tests 167936 64,128,256 a100 40,96,160
emulated_gpu_tests 102400 64,128 100kb 40,96
step done
