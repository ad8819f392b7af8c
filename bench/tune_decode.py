"""Decode tuning sweep for one process's kernel configuration (set BLASST_DECODE90=K,LAG or
BLASST_DECODE_KERNEL=mma in the environment; both are read once per process): dense and
Skip-Softmax (hot = 0.25) decode at the three benchmark sizes, contiguous, bf16, d = 128,
32/8 heads (--shape B,L,HQ,HKV,LQ instead: one call of LQ query tokens, e.g. speculative
decoding; --d 64|256 another head dim). Prints one line per size. Example:
for c in 3,2 2,1 4,2; do BLASST_DECODE90=$c python3 bench/tune_decode.py target/device/libblasst.so; done"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402
from bench import SDPBackend, dense_and_skip, sdpa, structured, timeit  # noqa: E402

bl = Blasst(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "target/device/libblasst.so")
cfg = "/".join(f"{k[7:]}={os.environ[k]}" for k in ("BLASST_DECODE90", "BLASST_DECODE_KERNEL", "BLASST_DECODE_UNITS", "BLASST_PDL", "BLASST_DECODE90_EVICT")
               if k in os.environ) or "default"
shapes = [(1, 131072, 32, 8, 1), (16, 32768, 32, 8, 1), (64, 8192, 32, 8, 1)]
if "--shape" in sys.argv:
    shapes = [tuple(int(x) for x in sys.argv[sys.argv.index("--shape") + 1].split(","))]
D = int(sys.argv[sys.argv.index("--d") + 1]) if "--d" in sys.argv else 128
for B, L, HQ, HKV, LQ in shapes:
    q, k, v = structured(B, L, HQ, HKV, D, 0.25, seed=L + B, Sq=LQ, spread=True)
    o = torch.empty(B, LQ, HQ, D, device="cuda", dtype=torch.bfloat16)
    gb = 2 * B * L * HKV * D * 2 / 1e9
    td, ts, frac = dense_and_skip(bl, q, k, v, o, 1e-3 * L, workspace=True, iters=20)
    if "--sdpa" in sys.argv:
        backends = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
        t = timeit(lambda: sdpa(q, k, v, False, backends), iters=20)
        print(f"{'torch sdpa':>24} {B:>3}x{L:<6} {t * 1e6:7.1f} us {gb / t:6.0f} GB/s")
    print(f"{cfg:>24} d{D} {B:>3}x{L:<6} {HQ}/{HKV} x{LQ} dense {td * 1e6:7.1f} us {gb / td:6.0f} GB/s | skip {frac:5.1%} "
          f"{ts * 1e6:7.1f} us x{td / ts:.2f}", flush=True)
