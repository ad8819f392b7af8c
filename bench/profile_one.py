"""A few calls for Nsight Compute, filtered with -k. `decode`: 16 x 32K dense, the same size with
Skip-Softmax on structured inputs (~70 % skipped) and 1 x 128K dense (32/8 heads); `prefill`: one
dense prefill on random inputs and one Skip-Softmax prefill on structured inputs with ~90 %
skipped tiles (S = 8K, 32 heads); `prefill-dims`: dense prefill at d = 128, then d = 256 (S = 8K); `sdpa-prefill`: PyTorch SDPA's cuDNN
backend, then blasst dense, at S = 4K and 16K (non-causal, random inputs);
`prefill-nothing`: dense prefill, then the Skip-Softmax kernel
with a factor that skips nothing, on the same random inputs (S = 8K); `sdpa-decode`: PyTorch SDPA on the 16 x 32K decode inputs, then
blasst on the same size; `decode-wide`: 4 x 32K, 4 tokens x 32/4 heads (32 packed rows), dense and
~70 % skipped; `paged-1sm` (session 39): 1 x 128K dense over the contiguous cache and over 64- and
256-key pages in order (the same bytes in the same order), all planned for one CTA per SM
(BLASST_DECODE_PAGED_ONE_PER_SM=1), each once between cudaProfilerStart and Stop (ncu
--profile-from-start off). All bf16, d = 128. For example
ncu -k regex:prefill90 python3 bench/profile_one.py target/device/libblasst.so prefill"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402
from bench import structured  # noqa: E402

bl = Blasst(sys.argv[1] if len(sys.argv) > 1 else "target/device/libblasst.so")
what = sys.argv[2] if len(sys.argv) > 2 else "all"
D = 128


def decode(B, L, hot, HKV=8, LQ=1):
    if hot is None:
        q = torch.randn(B, LQ, 32, D, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, L, HKV, D, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, L, HKV, D, device="cuda", dtype=torch.bfloat16)
    else:
        q, k, v = structured(B, L, 32, HKV, D, hot, seed=L + B, Sq=LQ, spread=True)
    o = torch.empty(B, LQ, 32, D, device="cuda", dtype=torch.bfloat16)
    stats = torch.zeros(2, dtype=torch.int64, device="cuda")
    p = bl.params(q, k, v, o, factor=0.0 if hot is None else 1e-3 * L, stats=stats)
    for _ in range(2):
        bl.run(p)
    torch.cuda.synchronize()
    print(f"decode {B}x{L} hot={hot}: visited/skipped (2 calls)", stats.tolist())


if what == "paged-1sm":
    from bench import paged_cache  # noqa: E402
    os.environ["BLASST_DECODE_PAGED_ONE_PER_SM"] = "1"
    B, L = 1, 131072
    q = torch.randn(B, 1, 32, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, L, 8, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    o = torch.empty_like(q)
    layouts = [(k, v, {})] + [paged_cache(k, v, page, shuffle=False) for page in (64, 256)]
    calls = [bl.with_workspace(bl.params(q, kk, vv, o, **kw)) for kk, vv, kw in layouts]
    for p in calls:
        for _ in range(3):
            bl.run(p)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for p in calls:
        bl.run(p)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print("done: contiguous, 64-key pages, 256-key pages")
if what == "sdpa-decode":
    # PyTorch SDPA on the 16 x 32K decode inputs, for a side-by-side profile with `decode`.
    from bench import SDPBackend, sdpa  # noqa: E402

    q = torch.randn(16, 1, 32, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(16, 32768, 8, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(16, 32768, 8, D, device="cuda", dtype=torch.bfloat16)
    for _ in range(2):
        sdpa(q, k, v, False, [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION])
    torch.cuda.synchronize()
    decode(16, 32768, None)
if what == "decode-wide":
    # 4 tokens x GQA 8 = 32 packed rows (the wide Hopper decode kernel), dense then ~70 % skipped.
    decode(4, 32768, None, HKV=4, LQ=4)
    decode(4, 32768, 0.25, HKV=4, LQ=4)
if what in ("all", "decode"):
    decode(16, 32768, None)
    decode(16, 32768, 0.25)
    decode(1, 131072, None)
if what == "prefill-nothing":
    S = 8192
    q, k, v = (torch.randn(1, S, 32, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.empty_like(q)
    stats = torch.zeros(2, dtype=torch.int64, device="cuda")
    bl.run(bl.params(q, k, v, o))
    bl.run(bl.params(q, k, v, o, factor=1e-30 * S, stats=stats))
    torch.cuda.synchronize()
    print("done; nothing-skipped prefill visited/skipped", stats.tolist())
if what == "sdpa-prefill":
    # (session 55) the gap to cuDNN: PyTorch SDPA's cuDNN backend, then blasst dense, on the same
    # random inputs (bf16, d = 128, 32 heads, non-causal) at S = 4K (0.85x cuDNN in run 283) and
    # 16K (0.97x), two calls each.
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    for S in (4096, 16384):
        q, k, v = (torch.randn(1, S, 32, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            for _ in range(2):
                F.scaled_dot_product_attention(qt, kt, vt)
        p = bl.params(q, k, v, o)
        for _ in range(2):
            bl.run(p)
    torch.cuda.synchronize()
    print("done: cuDNN and blasst dense prefill at 4K and 16K")
if what == "prefill-dims":
    # (session 54) one dense prefill at d = 128, then one at d = 256 (S = 8K, 32 heads,
    # non-causal, random inputs): where the d = 256 kernel's time goes beside d = 128's.
    S = 8192
    for d in (128, 256):
        q, k, v = (torch.randn(1, S, 32, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        bl.run(bl.params(q, k, v, o))
    torch.cuda.synchronize()
    print("done: dense prefill d = 128, d = 256")
if what in ("all", "prefill"):
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
