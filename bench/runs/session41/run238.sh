#!/usr/bin/env bash
# Run 238 (session 41): 16- and 32-key pages copied warp by warp (kernels/decode_sm90.cu,
# make_loader / load_tile_small_pages: warp w copies rows 16 w .. 16 w + 15 of a tile, which lie in
# one page, so each thread needs one block-table entry per tile and one pointer add per copy;
# the small-page kernels 5344 -> 4968 SASS instructions at d = 128, the 64-key kernel 4848).
# device-base = ea95226 (run 237's build), device = the tree. Prediction: row-tiled 16-key calls
# 117 -> ~105 us (0.80x -> ~0.9x of contiguous); one-token calls over 16- and 32-key pages +0-2 %;
# contiguous and 64-key calls unchanged (their kernels' code is unchanged). Then all GPU tests
# under memcheck, with the new cases of 16-row tiles over 16- and 32-key pages.
source bench/runs/common.sh
LOG="$OUT/run238-steps.log"
precompile
B="target/device-base/libblasst.so target/device/libblasst.so"
LAYOUT_TIMEOUT=100 paged_layout run238-rows $B --tokens 4 --heads 32/4 --pages 16,32,64 --size 1x131072 --size 4x32768
LAYOUT_TIMEOUT=100 paged_layout run238-one $B --pages 16,32
LAYOUT_TIMEOUT=60 paged_layout run238-one16rows $B --heads 64/4 --pages 16,32 --size 16x8192 --size 1x131072
MEMCHECK_TIMEOUT=240 memcheck
step end
