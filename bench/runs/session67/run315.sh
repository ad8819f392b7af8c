#!/usr/bin/env bash
# Run 315 (prepared in session 66, for the next lease): what session 66's device time did not
# reach. (1) The Skip-Softmax kernel's wait for P V_{t-1} before the softmax's branches
# (4baa2f8) timed over 64- and 32-key pages (run 313 timed contiguous and 16-key pages only);
# builds: target/device-base = 1e52a13 (the wait in each branch), target/device = the tree.
# (2) The benchmark's tables of today's tree (split overlap over small pages, the retire moved):
# on an H200 the first since run 283 (session 54), on an H100 the first since run 307 (session
# 64). Two calls, each under the device tool's 600 s: `SKIP_BENCH=1` (~330 s: the tests and the
# A/Bs), then `BENCH_ONLY=1` (~330 s: the tables). Predicted: (1) 64-key pages dense within +-2 %
# (the same kernel), Skip-Softmax -1..+3 %; 32-key pages dense +0.2..+4.1 % (see below),
# Skip-Softmax -1..+3 %; (2) contiguous rows as run 307's (H100) within 0.03 on the
# skip-over-dense ratios; the paged prefill rows over 16-key pages faster than run 307's by ~5-10 %
# skipping.
set -uo pipefail
source bench/runs/common.sh
run_start
if [ "${BENCH_ONLY:-0}" = 1 ]; then
  BENCH_TIMEOUT=300 bench_logged
  pack_out logs
  exit 0
fi
precompile target/device-base
# Since the session's last code commit the dense kernel over 32-key pages is the `_paged` one (the
# plain overlap, run 310's fastest dense kernel there) while Skip-Softmax keeps the split: the
# skip-nothing test now compares them bit for bit over 16- and 32-key pages, and the dense test
# runs 32-key pages on it. Predicted: pass; in the 32-key A/B below dense
# +0.2..+4.1 % over 1e52a13 (whose 32-key dense kernel was the split one).
BLASST_TEST_HEAD_DIMS=128 GPU_TESTS_TIMEOUT=150 gpu_tests_named "d = 128: skip nothing, dense, tile by tile" \
  skip_kernel_that_skips_nothing dense_matches_cpu_and_float64 skip_decisions_match_the_cpu_tile_by_tile
paged_check
AB_TIMEOUT=75 ab "64-key pages (1e52a13, tree)" --page=64
AB_TIMEOUT=80 ab "32-key pages (1e52a13, tree)" --page=32
[ "${SKIP_BENCH:-0}" = 1 ] || BENCH_TIMEOUT=300 bench_logged
pack_out logs
