"""Prefill calls for Nsight Compute (dense on random inputs, Skip-Softmax on structured inputs
with ~90 % skipped tiles), S = 8K, 32 heads, d = 128:
ncu -k regex:prefill python3 bench/profile_prefill.py target/device/libblasst.so"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402
from bench import structured  # noqa: E402

bl = Blasst(sys.argv[1] if len(sys.argv) > 1 else "target/device/libblasst.so")
S, H, D = 8192, 32, 128
q = torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16)
o = torch.empty_like(q)
bl.run(bl.params(q, k, v, o))
q, k, v = structured(1, S, H, H, D, 0.08, seed=S)
stats = torch.zeros(2, dtype=torch.int64, device="cuda")
bl.run(bl.params(q, k, v, o, factor=1e-3 * S, stats=stats))
torch.cuda.synchronize()
print("skipped", stats.tolist())
