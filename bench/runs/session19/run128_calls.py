"""Run 128's calls for Nsight Compute: PyTorch SDPA (the benchmark's backends) and the shipped
library's dense decode, three calls each, at 16 x 32K and 64 x 8K (Gaussian, 32/8 heads, d = 128)."""
import sys

import torch

sys.path.insert(0, "bench")
from blasst_ctypes import Blasst  # noqa: E402
from bench import SDPBackend, sdpa  # noqa: E402

bl = Blasst(sys.argv[1])
for B, L in ((16, 32768), (64, 8192)):
    q = torch.randn(B, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, L, 8, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, L, 8, 128, device="cuda", dtype=torch.bfloat16)
    o = torch.empty(B, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    p = bl.with_workspace(bl.params(q, k, v, o))
    for _ in range(3):
        sdpa(q, k, v, False, [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION])
        bl.run(p)
    torch.cuda.synchronize()
    print(B, L, flush=True)
