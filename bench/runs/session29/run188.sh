#!/usr/bin/env bash
# Run 188 (session 29): paged prefill at d >= 128 with two producer warpgroups (two teams of four
# warps; warp w of a team issues K's (w even) or V's (w odd) TMA boxes of column block w / 2, so a
# visit's 32 boxes at d = 128 with 16-key pages go out from four threads, eight each, instead of two
# threads, sixteen each; the cp.async path copies with 128 threads per team) against 8914484
# (target/device-base). Run 187's diagnostic: without V's boxes, 16-key pages gained nothing at 8K,
# so the thread that issues K's sixteen boxes one after another is the suspect.
# Paged check, interleaved A/Bs (d = 128 16- and 64-key pages, d = 256 and d = 64 16-key pages),
# then the GPU tests and the no-TMA tests (the paged cp.async path) with the new build.
# (Rewritten in session 30 to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s, and every A/B has a label line in ab.log.)
source bench/runs/common.sh
precompile
paged_check || exit 1
ab "d128 page 16" --page=16
AB_TIMEOUT=60 ab "d128 page 64" --paged
AB_TIMEOUT=60 ab "d256 page 16" --d256 --page=16
AB_TIMEOUT=50 ab "d64 page 16" --d64 --page=16
gpu_tests
step "gpu tests, BLASST_PREFILL_TMA=0 (dense, tile-by-tile)"
BLASST_PREFILL_TMA=0 timeout 110 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/gpu-tests.log" 2>&1
echo "gpu tests (no TMA) exit $?" | tee -a "$LOG"; grep -E "test result" "$OUT/gpu-tests.log" | tail -1 | tee -a "$LOG"
step done
