"""Is the benchmark's "nothing skipped" ratio at 4K non-causal (0.964x in run 217, its first
measured row) the skip kernel or the timing? bench.py times dense, then the skip kernel with
nothing skipped, in each of 5 interleaved rounds, and 4K non-causal is the first thing the
process times, while the GPU's clock falls from its idle 1980 MHz to the power cap. Here, in one
process on Gaussian inputs (bf16, d = 128, 32 heads, batch 1): the ratio dense / skip timed
exactly as bench.py does, first on a cold GPU, then after a few seconds of load, with dense
first and with the skip kernel first, three times each. Usage: python3 bench/micro/interleave_order.py LIB"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Blasst  # noqa: E402
from bench import timeit_interleaved  # noqa: E402

bl = Blasst(sys.argv[1])
H, D = 32, 128
cases = {}
for S, causal in ((4096, False), (4096, True), (8192, False)):
    q, k, v = (torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.empty_like(q)
    stats = torch.zeros(2, dtype=torch.int64, device="cuda")
    pd = bl.params(q, k, v, o, causal=causal)
    pn = bl.params(q, k, v, o, causal=causal, factor=1e-30 * S, stats=stats)
    bl.run(pd)
    bl.run(pn)
    # (The tensors too: a call's params hold only their device pointers.)
    cases[(S, causal)] = (pd, pn, (q, k, v, o, stats))
torch.cuda.synchronize()


def ratio(pd, pn, skip_first):
    fd, fn = (lambda: bl.run(pd)), (lambda: bl.run(pn))
    if skip_first:
        tn, td = timeit_interleaved([fn, fd])
    else:
        td, tn = timeit_interleaved([fd, fn])
    return td / tn


pd, pn, _ = cases[(4096, False)]
print(f"cold GPU, 4K non-causal, dense first (as bench.py): {ratio(pd, pn, False):.3f}x", flush=True)


def load(seconds):
    end = time.time() + seconds
    while time.time() < end:
        for _ in range(50):
            bl.run(pd)
        torch.cuda.synchronize()


load(3.0)
for rep in range(3):
    for (S, causal), (pd, pn, _) in cases.items():
        a, b = ratio(pd, pn, False), ratio(pd, pn, True)
        print(f"warm, rep {rep}, S={S} causal={int(causal)}: dense first {a:.3f}x, skip first {b:.3f}x, mean {(a + b) / 2:.3f}x",
              flush=True)
