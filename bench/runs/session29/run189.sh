#!/usr/bin/env bash
# Run 189 (session 29): run 188's two producer warpgroups for paged prefill at d >= 128 with the
# team's arrivals on a visit's full barrier made in one (thread 0's arrive.expect_tx and thread 32's
# arrive of count PTEAM - 1) instead of one per thread (128 per visit, run 188's build, kept as
# target/device-v1): against 8914484 (target/device-base). Paged check, interleaved A/Bs (d = 128
# 16-key pages; 64-key pages with run 188's build too; d = 256 16-key pages), the GPU tests, and
# memcheck over the dense and paged-prefill tests.
# (Rewritten in session 30 to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s, and every A/B has a label line in ab.log.)
source bench/runs/common.sh
precompile
paged_check || exit 1
ab "d128 page 16" --page=16
AB_TIMEOUT=90 ab "d128 page 64 (and run 188's build)" target/device-v1/libblasst.so --paged
AB_TIMEOUT=60 ab "d256 page 16" --d256 --page=16
gpu_tests
memcheck dense_matches paged_prefill_without
step done
