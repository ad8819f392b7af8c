#!/usr/bin/env bash
# Run 315 (prepared in session 66, for the next lease): what session 66's device time did not
# reach. (1) The Skip-Softmax kernel's wait for P V_{t-1} before the softmax's branches
# (4baa2f8) timed over 64- and 32-key pages (run 313 timed contiguous and 16-key pages only);
# builds: target/device-base = 1e52a13 (the wait in each branch), target/device = the tree.
# (2) The benchmark's tables of today's tree (split overlap over small pages, the retire moved):
# on an H200 the first since run 283 (session 54), on an H100 the first since run 307 (session
# 64). ~480 s. Predicted: (1) dense within +-2 % (the same kernels), Skip-Softmax -1..+3 %;
# (2) contiguous rows as run 307's (H100) within 0.03 on the skip-over-dense ratios; the paged
# prefill rows over 16-key pages faster than run 307's by ~5-10 % skipping.
set -uo pipefail
source bench/runs/common.sh
run_start
precompile target/device-base
AB_TIMEOUT=75 ab "64-key pages (1e52a13, tree)" --page=64
AB_TIMEOUT=80 ab "32-key pages (1e52a13, tree)" --page=32
BENCH_TIMEOUT=300 bench_logged
pack_out logs
