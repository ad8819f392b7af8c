"""One decode and one prefill call, for Nsight Compute: ncu ... python3 bench/profile_one.py"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402

bl = Blasst(sys.argv[1] if len(sys.argv) > 1 else "target/device/libblasst.so")
B, L, Hq, Hkv, D = 16, 32768, 32, 8, 128
q = torch.randn(B, 1, Hq, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(B, L, Hkv, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(B, L, Hkv, D, device="cuda", dtype=torch.bfloat16)
o = torch.empty_like(q)
p = bl.params(q, k, v, o)
for _ in range(2):
    bl.run(p)
S = 8192
q = torch.randn(1, S, 32, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, S, 32, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(1, S, 32, D, device="cuda", dtype=torch.bfloat16)
o = torch.empty_like(q)
p = bl.params(q, k, v, o)
for _ in range(2):
    bl.run(p)
torch.cuda.synchronize()
print("done")
