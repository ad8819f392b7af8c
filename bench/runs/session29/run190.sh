#!/usr/bin/env bash
# Run 190 (session 29): the build to keep: two producer warpgroups for paged prefill at d = 256
# only (d = 64 and d = 128 compile to 8914484's code: their SASS differs only in the producer-role
# test, `wg >= NWG` for `wg == NWG`). The paged check (now also at d = 256: pages of 16, 64 and 256
# keys, num_pages given and 0), interleaved A/Bs against 8914484 at d = 256 with 64-key pages (not
# measured in runs 188-189) and 16-key pages, the GPU tests, memcheck over the dense and
# paged-prefill tests.
# (Rewritten in session 30 to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s, and every A/B has a label line in ab.log.)
source bench/runs/common.sh
precompile
paged_check
ab "d256 page 64" --d256 --paged
ab "d256 page 16" --d256 --page=16
gpu_tests
memcheck dense_matches paged_prefill_without
step done
