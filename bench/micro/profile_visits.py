"""Reads the phase timings that bench/micro/visit_profile.patch writes into the output (see there):
cycles per 128-key visit of consumer warp 0 of each warpgroup in one CTA (the middle row block
of head 3) of the 8K non-causal call, split into visits that kept both halves, skipped both, and
kept one (the patch of session 17; session 10's had two kinds)."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Blasst  # noqa: E402
from bench import structured  # noqa: E402

bl = Blasst(sys.argv[1])
S, H, D = 8192, 32, 128
names = ["fullwait", "turn", "issue", "mmawait", "maxima", "votes", "rest", "total"]
for hot in (None, 0.5, 0.3, 0.08):
    if hot is None:
        q, k, v = (torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    else:
        q, k, v = structured(1, S, H, H, D, hot, seed=S)
    o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
    for fac in ((0.0, 1e-30 * S) if hot is None else (1e-3 * S,)):
        stats = torch.zeros(2, dtype=torch.int64, device="cuda")
        p = bl.params(q, k, v, o, causal=False, factor=fac, stats=stats)
        for _ in range(3):
            bl.run(p)
        torch.cuda.synchronize()
        nblk = S // 128
        r0 = (nblk - 1 - nblk // 2) * 128
        for wg in (0, 1):
            raw = o[0, r0 + 64 * wg, 3, :].view(torch.int16).cpu().to(torch.int64) & 0xFFFF
            vals = [sum(int(raw[i * 4 + kk]) << (16 * kk) for kk in range(4)) for i in range(32)]
            for c, kind in enumerate(("kept both", "skipped  ", "kept one ")):
                n = vals[c * 9 + 8]
                if n:
                    print(f"hot={hot} fac={fac:.3g} wg={wg} {kind} n={n:3d} "
                          + " ".join(f"{nm} {vals[c * 9 + i] / n:6.0f}" for i, nm in enumerate(names))
                          + f" | CTA loop {vals[27]}", flush=True)
