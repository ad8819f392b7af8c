"""Quick prefill A/B: dense, skip with nothing skipped, and Skip-Softmax on structured inputs
(hot = 0.5, 0.3, 0.08), bf16, d = 128, 32 heads, batch 1, for one library build (pass its
path; compare two builds of the kernel with two runs). Prints one line per size and mask with the
speedups over blasst dense on the same input. Example:
for lib in target/device/libblasst.so /tmp/old/libblasst.so; do python3 bench/tune_prefill.py $lib; done"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402
from bench import structured, timeit  # noqa: E402

lib = sys.argv[1] if len(sys.argv) > 1 else "target/device/libblasst.so"
bl = Blasst(lib)
cfg = os.path.basename(os.path.dirname(os.path.abspath(lib)))  # the build's folder names the line
H, D = 32, 128
for S, causal in ((8192, False), (8192, True), (16384, False)):
    o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
    stats = torch.zeros(2, dtype=torch.int64, device="cuda")
    q, k, v = (torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    pd = bl.params(q, k, v, o, causal=causal)
    td = timeit(lambda: bl.run(pd))
    p = bl.params(q, k, v, o, causal=causal, factor=1e-30 * S, stats=stats)
    tn = timeit(lambda: bl.run(p))
    parts = [f"dense {td * 1e3:6.2f} ms", f"nothing x{td / tn:.2f}"]
    for hot in (0.5, 0.3, 0.08):
        q, k, v = structured(1, S, H, H, D, hot, seed=S)
        pd = bl.params(q, k, v, o, causal=causal)
        tdh = timeit(lambda: bl.run(pd))
        stats.zero_()
        p = bl.params(q, k, v, o, causal=causal, factor=1e-3 * S, stats=stats)
        bl.run(p)
        torch.cuda.synchronize()
        s = stats.tolist()
        t = timeit(lambda: bl.run(p))
        parts.append(f"{s[1] / max(1, s[0]):4.0%} x{tdh / t:.2f}")
    print(f"{cfg:>10} S={S:<5} causal={int(causal)} " + " | ".join(parts), flush=True)
