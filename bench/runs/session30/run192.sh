#!/usr/bin/env bash
# Run 192 (session 30): run 191's page reads, reworked. Run 191's build (every chunk's read and box
# issue unrolled, the table row recomputed per chunk) gained at 16-key pages but lost 1-10 % at
# 64-key pages, most where most is skipped (the producer's own time is on a skipping visit's path).
# This build: the sequence's table row once per CTA, a visit's entries at immediate offsets (one
# read for pages of 128 keys and more), the issue loop kept rolled (the chunk's page moves down
# the registers), and d = 64 (32-register producers) keeps one read per box (two or four at a time
# spilled there). Against a88bf34 (target/device-base).
# Paged check, interleaved A/Bs, the GPU tests, memcheck over the paged-prefill tests.
# (Rewritten after the run to source bench/runs/common.sh: the same steps and commands; some
# step timeouts differ by 10-40 s, and every A/B has a label line in ab.log.)
source bench/runs/common.sh
precompile
paged_check || exit 1
ab "d128 page 16" --page=16
ab "d128 page 64" --paged
ab "d128 page 256" --page=256
ab "d256 page 16" --d256 --page=16
ab "d256 page 64" --d256 --paged
gpu_tests
memcheck paged_prefill_without
step done
