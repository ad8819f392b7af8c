#!/usr/bin/env bash
# (Its paged_layout step was written out inline when it ran; the same command.)
# Run 224 (session 39): the paged decode's block-table entries read by one to four threads into a
# shared-memory ring KSLOTS + 1 tiles ahead, the copies reading them from there
# (kernels/decode_sm90.cu pring), against c237e34 (target/device-base: every thread reads the
# table in global memory before its copies), and with paged dense calls planned for one CTA per
# SM (BLASST_DECODE_PAGED_ONE_PER_SM=1) (bench/micro/paged_layout.py); then the GPU tests. Not
# kept (mixed, -2 % to +3 %; bench/RESULTS.md session 39); the change itself is not in the tree.
source bench/runs/common.sh
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
precompile
paged_layout run224 target/device-base/libblasst.so target/device/libblasst.so \
  target/device/libblasst.so:BLASST_DECODE_PAGED_ONE_PER_SM=1
gpu_tests
