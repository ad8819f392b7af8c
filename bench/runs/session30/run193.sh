#!/usr/bin/env bash
# Run 193 (session 30): the page reads at once only where run 192 gained: d = 128 with pages under
# 64 keys (a runtime branch in the d = 128 paged kernels; 64-key and larger pages take a88bf34's
# loop, and the d = 64 and d = 256 cubins are a88bf34's, SASS compared with cuobjdump). Against
# a88bf34 (target/device-base): the paged check (now also 32-key pages), interleaved A/Bs at
# d = 128 with 16-, 32-, 64- and 256-key pages, the GPU tests, memcheck over the paged-prefill test.
# (Rewritten after the run to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s.)
source bench/runs/common.sh
precompile
paged_check || exit 1
for pg in 16 64 32 256; do AB_TIMEOUT=60 ab "d128 page $pg" --page=$pg; done
gpu_tests
memcheck paged_prefill_without
step done
