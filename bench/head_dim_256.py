"""Head dim 256 on the GPU: bf16, prefill 32 heads at 4K and 16K, causal or not (on Hopper the
wgmma kernel and the portable mma.sync one, BLASST_PREFILL_KERNEL=mma), and decode 32 query /
8 KV heads at 1 x 64K and 16 x 16K (on Hopper the Hopper decode kernel and the portable one,
BLASST_DECODE_KERNEL=mma); blasst dense, blasst Skip-Softmax on the structured inputs (hot =
0.25, threshold 1e-3) and PyTorch SDPA (its best backend for d = 256) in one process.
--decode-only leaves out prefill; --d 64 times head dim 64 instead (the same rows: the benchmark,
bench/bench.py, is d = 128 only); --d 96 (any multiple of 8 up to 256) a head dim that runs
zero-padded on the next kernel (FLOPs and bytes counted at the call's head dim).
Example: python3 bench/head_dim_256.py target/device/libblasst.so"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402
from bench import SDPBackend, dense_and_skip, sdpa, structured, timeit  # noqa: E402

argv = sys.argv[1:]
D = int(argv[argv.index("--d") + 1]) if "--d" in argv else 256
args = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--d")]
bl = Blasst(args[0] if args else "target/device/libblasst.so")
# On Hopper each call also with the portable kernels (BLASST_*_KERNEL=mma).
kernels = ("default", "mma") if torch.cuda.get_device_capability()[0] == 9 else ("default",)
BACKENDS = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
print(f"GPU {torch.cuda.get_device_name()}, d = {D}, bf16", flush=True)
for S in () if "--decode-only" in sys.argv else (4096, 16384):
    for causal in (False, True):
        H = 32
        flops = 4 * S * S * H * D / (2 if causal else 1)
        q, k, v = structured(1, S, H, H, D, 0.25, seed=S)
        o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
        try:
            tt = timeit(lambda: sdpa(q, k, v, causal, BACKENDS))
            sd = f"sdpa {flops / tt / 1e12:5.0f} TFLOP/s"
        except Exception as e:  # noqa: BLE001
            sd = f"sdpa: {str(e)[:80]}"
        for kern in kernels:
            os.environ["BLASST_PREFILL_KERNEL"] = kern
            td, ts, frac = dense_and_skip(bl, q, k, v, o, 1e-3 * S, causal=causal)
            print(f"prefill S={S} causal={int(causal)} kernel={kern:7s}: dense {flops / td / 1e12:5.0f} "
                  f"TFLOP/s | skip {frac:4.0%} x{td / ts:.2f} | {sd}", flush=True)
        os.environ.pop("BLASST_PREFILL_KERNEL")
for B, L in ((1, 65536), (16, 16384)):
    q, k, v = structured(B, L, 32, 8, D, 0.25, seed=L + B, Sq=1, spread=True)
    o = torch.empty(B, 1, 32, D, device="cuda", dtype=torch.bfloat16)
    gb = 2 * B * L * 8 * D * 2 / 1e9
    try:
        tt = timeit(lambda: sdpa(q, k, v, False, BACKENDS), iters=20)
        sd = f"sdpa {gb / tt:5.0f} GB/s"
    except Exception as e:  # noqa: BLE001
        sd = f"sdpa: {str(e)[:80]}"
    for kern in kernels:
        os.environ["BLASST_DECODE_KERNEL"] = kern
        td, ts, frac = dense_and_skip(bl, q, k, v, o, 1e-3 * L, workspace=True, iters=20)
        print(f"decode {B}x{L} kernel={kern:7s}: dense {gb / td:5.0f} GB/s ({td * 1e6:6.1f} us) | skip {frac:4.0%} "
              f"x{td / ts:.2f} | {sd}", flush=True)
    os.environ.pop("BLASST_DECODE_KERNEL")
