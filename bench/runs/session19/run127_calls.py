"""Run 127's calls for Nsight Compute: three dense decode calls (Gaussian, 32/8 heads, d = 128)
per library and size, with a workspace; ncu serialises the kernels, so each one's duration is its
own (under PDL the torch.profiler durations of run 126 overlapped)."""
import sys

import torch

sys.path.insert(0, "bench")
from blasst_ctypes import Blasst  # noqa: E402

for lib in sys.argv[1:]:
    bl = Blasst(lib)
    for B, L in ((16, 32768), (64, 8192)):
        q = torch.randn(B, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, L, 8, 128, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, L, 8, 128, device="cuda", dtype=torch.bfloat16)
        o = torch.empty(B, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        p = bl.with_workspace(bl.params(q, k, v, o))
        for _ in range(3):
            bl.run(p)
        torch.cuda.synchronize()
        print(lib, B, L, flush=True)
