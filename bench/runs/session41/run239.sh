#!/usr/bin/env bash
# Run 239 (session 41, the lease's last ~4 minutes): since run 238 each warp of the small-page
# kernel needs one block-table entry per tile, one shuffle from lanes instead of 4 or 2. Run 228
# had found entries in lanes 1-2.5 % slower than reads at the copies for tiles of up to 8 rows,
# when they took E shuffles. device-lanes = the tree with IN_LANES for every small-page kernel
# (run239-small-pages-all-in-lanes.patch); device = the tree (17289c0's kernel code). One-token
# calls (4 rows, NT = 1) over 16- and 32-key pages at issue 6's sizes. Prediction: +0-1 %.
# Timing only: no tests of the patched build ran, so it is not in the tree whatever it shows.
source bench/runs/common.sh
LOG="$OUT/run239-steps.log"
precompile
precompile target/device-lanes
LAYOUT_TIMEOUT=60 paged_layout run239-one target/device/libblasst.so target/device-lanes/libblasst.so --pages 16,32
step end
