#!/usr/bin/env bash
# Run 203 (session 32): scripts/device-check.sh of this tree without the emulations,
# memcheck and the benchmark (the kernels of 64, 128 and 256 disassemble as before): the GPU
# tests (now with the padded-head-dim test and dense_checked) with the Hopper kernels, the
# portable ones and the cp.async prefill path, threads and contexts, the PyTorch prefill check.
SKIP_EMULATED_TESTS=1 SKIP_SANITIZER=1 SKIP_BENCH=1 OUT=$OUT bash scripts/device-check.sh
