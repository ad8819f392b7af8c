"""Paged prefill (prefill with a paged cache) against a float32 reference on the GPU machine:
bf16, GQA 2, one or two sequences, page sizes 16, 32, 64 and 256 in shuffled order, causal
(bottom-right aligned) or not, d = 64, 128 and 256, with the pools' page count given (num_pages) and
not (0); prints each case's largest output error. Then times a d = 128 8K call with num_pages
given and 0, which must run alike: on Hopper both take the TMA copies (the cp.async copies,
which the kernel falls back to when the host has no tensor maps, were 2.5x slower there: run
173); a pair more than 15 % apart counts as a bad case. Exits 1 on any bad case.
Run it once per setting of BLASST_PREFILL_TMA / BLASST_PREFILL_KERNEL (read once per process).
Example: python3 bench/check_paged_prefill.py target/device/libblasst.so"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from bench import paged_cache, reference_attention, timeit_interleaved  # noqa: E402
from blasst_ctypes import Blasst  # noqa: E402

bl = Blasst(sys.argv[1] if len(sys.argv) > 1 else "target/device/libblasst.so")
torch.manual_seed(0)
Hq, Hkv = 4, 2
bad = 0
for D in (64, 128, 256):
    for lq, lk in ((200, 700), (700, 700), (130, 500)):
        for page in (16, 32, 64, 256):
            for causal in (False, True):
                q = torch.randn(1, lq, Hq, D, device="cuda").bfloat16()
                k = torch.randn(1, lk, Hkv, D, device="cuda").bfloat16()
                v = torch.randn(1, lk, Hkv, D, device="cuda").bfloat16()
                kp, vp, kw = paged_cache(k, v, page, spare=3)
                ref = reference_attention(q, k, v, causal)
                for num_pages in (kw["num_pages"], 0):
                    o = torch.empty_like(q)
                    p = bl.params(q, kp, vp, o, causal=causal, **dict(kw, num_pages=num_pages))
                    bl.run(p)
                    torch.cuda.synchronize()
                    err = (o.float() - ref).abs().max().item()
                    ok = err < 3e-2
                    bad += not ok
                    print(f"{'ok ' if ok else 'BAD'} d={D} lq={lq} lk={lk} page={page} causal={int(causal)} "
                          f"num_pages={num_pages}: max err {err:.3e}", flush=True)

S, H, D = 8192, 32, 128
q, k, v = (torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
kp, vp, kw = paged_cache(k, v, 64)
o = torch.empty_like(q)
ps = [bl.params(q, kp, vp, o, **dict(kw, num_pages=n)) for n in (kw["num_pages"], 0)]
given, unknown = timeit_interleaved([lambda p=p: bl.run(p) for p in ps])
ok = unknown < 1.15 * given
bad += not ok
print(f"{'ok ' if ok else 'BAD'} d=128 S=8192 64-key pages: num_pages given {given * 1e3:.3f} ms, "
      f"0 {unknown * 1e3:.3f} ms (x{given / unknown:.3f})", flush=True)
print(f"{bad} bad cases")
sys.exit(1 if bad else 0)
