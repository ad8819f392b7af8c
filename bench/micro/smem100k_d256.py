"""Head dim 256 as a GPU of 100 KB per SM runs it, on the H100/H200 emulating one (session 53):
prefill on the portable kernel's compact layout (96 KB), and decode-shaped calls on whatever
plan the library makes there (each row prints it: the prefill plan in session 53's tree, the
decode kernel of 32-key tiles with decode-n32.patch). Run twice, in two processes (BLASST_SMEM_PER_SM is read once
per process), both with the portable kernels:
  BLASST_SMEM_PER_SM=102400 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma python3 bench/micro/smem100k_d256.py LIB
  BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma python3 bench/micro/smem100k_d256.py LIB
the second giving the usual portable layouts on the same GPU (the prefill kernel's 128-row,
two-V-buffer layout and the split-KV decode kernel) for comparison. Not a speed on a 100 KB GPU:
this GPU has 132 SMs of 228 KB and 3.35-4.8 TB/s. bf16, structured inputs (hot 0.25),
Skip-Softmax at threshold 1e-3 x length."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Blasst  # noqa: E402
from bench import dense_and_skip, structured  # noqa: E402

D = 256
bl = Blasst(sys.argv[1] if len(sys.argv) > 1 else "target/device/libblasst.so")
label = f"smem {os.environ.get('BLASST_SMEM_PER_SM', 'GPU')}"
print(f"GPU {torch.cuda.get_device_name()}, d = {D}, bf16, {label}", flush=True)
for S, causal in ((4096, False), (4096, True)):
    H = 32
    flops = 4 * S * S * H * D / (2 if causal else 1)
    q, k, v = structured(1, S, H, H, D, 0.25, seed=S)
    o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
    td, ts, frac = dense_and_skip(bl, q, k, v, o, 1e-3 * S, causal=causal)
    print(f"{label} prefill S={S} causal={int(causal)}: dense {flops / td / 1e12:5.0f} TFLOP/s ({td * 1e3:7.3f} ms) "
          f"| skip {frac:4.0%} x{td / ts:.2f}", flush=True)
for B, L in ((1, 65536), (16, 16384)):
    q, k, v = structured(B, L, 32, 8, D, 0.25, seed=L + B, Sq=1, spread=True)
    o = torch.empty(B, 1, 32, D, device="cuda", dtype=torch.bfloat16)
    gb = 2 * B * L * 8 * D * 2 / 1e9
    phase = ("prefill", "decode")[bl.plan(bl.params(q, k, v, o)).phase]
    td, ts, frac = dense_and_skip(bl, q, k, v, o, 1e-3 * L, workspace=True, iters=20)
    print(f"{label} decode {B}x{L} ({phase} plan): dense {gb / td:5.0f} GB/s ({td * 1e6:7.1f} us) "
          f"| skip {frac:4.0%} x{td / ts:.2f}", flush=True)
