"""Reads what bench/micro/cta_profile.patch writes over the first row of every CTA's output
(%globaltimer at entry, after the PDL wait, before and after the visit loop, after the epilogue
of warpgroup 0's first warp, %smid, and after the consumers' last barrier) and prints where a Hopper prefill CTA's time goes outside its visit loop: prologue,
epilogue, the gap between consecutive CTAs on one SM, and the last wave's tail. bf16, d = 128,
32 heads, batch 1, non-causal; dense (Gaussian) and Skip-Softmax on the structured input.
  python3 bench/micro/profile_ctas.py LIB"""
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Blasst  # noqa: E402
from bench import structured  # noqa: E402

bl = Blasst(sys.argv[1])
H, D = 32, 128


def ctas(o, S):
    rows = o[0, 0:S:128, :, :28].contiguous().view(torch.int16).cpu().to(torch.int64) & 0xFFFF
    out = []
    for rb in range(rows.shape[0]):
        for h in range(H):
            r = rows[rb, h]
            v = [sum(int(r[i * 4 + k]) << (16 * k) for k in range(4)) for i in range(7)]
            out.append(v)
    return out


def report(label, cs):
    t0 = min(c[1] for c in cs)
    end = max(c[4] for c in cs)
    span = end - t0
    pre = [c[2] - c[1] for c in cs]
    loop = [c[3] - c[2] for c in cs]
    epi = [c[4] - c[3] for c in cs]
    bysm = {}
    for c in cs:
        bysm.setdefault(c[5], []).append(c)
    gaps, gaps_all, tails, busy = [], [], [], []
    # c[6]: after the consumers' last barrier (every warp past its epilogue and the counts).
    rest = [c[6] - c[4] for c in cs]
    for sm, l in bysm.items():
        l.sort(key=lambda c: c[1])
        gaps += [b[1] - a[4] for a, b in zip(l, l[1:])]
        gaps_all += [b[1] - a[6] for a, b in zip(l, l[1:])]
        tails.append(end - l[-1][4])
        busy.append(sum(c[3] - c[2] for c in l))
    med = statistics.median
    print(f"{label}: {len(cs)} CTAs on {len(bysm)} SMs, span {span / 1e3:.1f} us; per CTA (median, us): "
          f"prologue {med(pre) / 1e3:.2f}, loop {med(loop) / 1e3:.2f} (min {min(loop) / 1e3:.2f}, max {max(loop) / 1e3:.2f}), "
          f"epilogue {med(epi) / 1e3:.2f}; gap between CTAs on an SM {med(gaps) / 1e3:.2f} (mean {statistics.mean(gaps) / 1e3:.2f}); "
          f"of which the other consumer warps and the counts {med(rest) / 1e3:.2f} (mean {statistics.mean(rest) / 1e3:.2f}), "
          f"the rest (exit, launch, PDL wait) {med(gaps_all) / 1e3:.2f} (mean {statistics.mean(gaps_all) / 1e3:.2f}); "
          f"tail after an SM's last CTA mean {statistics.mean(tails) / 1e3:.1f}; loops' share of SM time "
          f"{statistics.mean(busy) / span:.3f}", flush=True)


for S in (4096, 8192, 16384):
    qg, kg, vg = (torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    qs, ks, vs = structured(1, S, H, H, D, 0.5, seed=S)
    o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
    for label, (q, k, v), fac in ((f"S={S} dense", (qg, kg, vg), 0.0),
                                  (f"S={S} skip hot=0.5", (qs, ks, vs), 1e-3 * S),
                                  (f"S={S} dense, structured input", (qs, ks, vs), 0.0)):
        p = bl.params(q, k, v, o, causal=False, factor=fac)
        for _ in range(5):
            bl.run(p)
        torch.cuda.synchronize()
        report(label, ctas(o, S))
