#!/usr/bin/env bash
# Run 303 (session 60; ran on an H100, not kept: bench/RESULTS.md "Session 60"; its A/B, checks,
# GPU tests and racecheck since written, unchanged, as common.sh's ab, prefill_checks,
# gpu_tests_named and racecheck_tile_case): SKIP_EARLY in the Hopper prefill skip kernels (kernels/prefill_sm90.cu):
# a visit whose every plan tile the warp skips is decided by one warp vote on each lane's own
# row maxima, before the quad shuffles (the vote is monotone in the maximum, so the decisions are
# the full votes' bit for bit), and skips the shuffles' two rounds. Why: run 298's visit profile
# puts a skipped visit's time in its warpgroup's chain from S to the next issue (~1000 cycles:
# maxima 415, votes 139-158, rest ~130, waits), and P = 512 + that chain per visit; the two
# shuffle rounds and the chained per-row votes are ~100-150 cycles of it.
# Prediction: skipped visits ~1510 -> ~1380-1420 cycles: ~90 % skipped +5-8 %, ~70 % +3-5 %,
# ~50 % +1-3 %; nothing skipped -1..+1 % (the vote runs under the first shuffle round); dense
# kernels unchanged (their cubins are the tree's: scripts/cubin-diff.py, code sections equal).
# Builds: target/device-base = 6c4c9bd (the tree), target/device = scripts/build-device.sh with
# the change; target/device-x (its library only) with the change and the full votes of lambda <= 1
# as `&` of the rows' votes instead of `&&` (ptxas had predicated the second row's vote on the
# first: a chain of ~8 instructions, now two side by side; decisions the same), for kept
# visits; carry all three.
# 1. check_prefill.py and check_paged_prefill.py with the change;
# 2. the interleaved A/B base | early (bench/ab_prefill.py);
# 3. the GPU tests of Skip-Softmax prefill with the change (decisions tile by tile against the CPU,
#    lambda above one, nothing skipped bit-identical to dense; paged prefill; padded head dims),
#    at every head dim (the d = 64 and d = 256 skip kernels changed too); racecheck over the
#    tile-by-tile prefill case.
set -uo pipefail
source bench/runs/common.sh
run_start
precompile target/device-base
prefill_checks target/device early
AB_TIMEOUT=200 ab "base | early | early + flat votes" target/device-x/libblasst.so
echo "ab exit $?" | tee -a "$LOG"
grep "speedup over own" "$OUT/ab.log" | tee -a "$LOG"
gpu_tests_named "early: skip, paged prefill, padded head dims (every head dim)" skip_ paged_prefill padded_head_dims
racecheck_tile_case
pack_out logs
