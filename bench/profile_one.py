"""A few calls for Nsight Compute, filtered with -k: one decode (16 x 32K, 32/8 heads), one
dense prefill on random inputs and one Skip-Softmax prefill on structured inputs with ~90 %
skipped tiles (S = 8K, 32 heads), all bf16, d = 128. For example
ncu -k regex:prefill90 python3 bench/profile_one.py target/device/libblasst.so"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402
from bench import structured  # noqa: E402

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
q, k, v = structured(1, S, 32, 32, D, 0.08, seed=S)
stats = torch.zeros(2, dtype=torch.int64, device="cuda")
bl.run(bl.params(q, k, v, o, factor=1e-3 * S, stats=stats))
torch.cuda.synchronize()
print("done; sparse prefill skipped", stats.tolist())
