"""Run 238's check of the small-page copy mapping of kernels/decode_sm90.cu (PAGED_SMALL:
make_loader, load_tile_small_pages), modelled in Python: at d = 64, 128 and 256 and pages of 16
and 32 keys, every (row, chunk) of a 64-row tile is copied exactly once, into its swizzled slot
swz(row, chunk), from the page of the warp's entry ew and the right row of that page.
Usage: python3 bench/runs/session41/small_page_mapping.py"""


def swz(row, chunk, chunks):  # kernels/common.cuh
    return (row * chunks + (chunk ^ (row & 7))) * 16


for D in (64, 128, 256):
    CH = D // 8
    WSTEP = 32 // CH
    NLOAD = 64 * CH // 128
    ROWB = D * 2
    for LOG2 in (4, 5):
        seen = set()
        for tid in range(128):
            w, lane, c = tid // 32, tid % 32, tid % CH
            r0 = w * 16 + lane // CH          # make_loader: L.r0
            dst = swz(r0, c, CH)              # L.dst
            row_in = r0 % WSTEP               # L.base's row
            ew = (w * 16) >> LOG2             # decode_body: ew
            for i in range(NLOAD):
                row = r0 + i * WSTEP
                slot = (dst ^ (((i * WSTEP) & 7) << 4)) + i * WSTEP * ROWB
                assert slot == swz(row, c, CH), (D, LOG2, tid, i)
                in_page = (r0 & ~15 & ((1 << LOG2) - 1)) + row_in + i * WSTEP
                assert row >> LOG2 == ew and in_page == row & ((1 << LOG2) - 1), (D, LOG2, tid, i)
                assert (row, c) not in seen
                seen.add((row, c))
        assert len(seen) == 64 * CH
print("small-page copy mapping: ok at d = 64, 128, 256, pages of 16 and 32 keys")
