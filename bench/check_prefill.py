"""Quick GPU smoke check of the prefill kernels against PyTorch SDPA (math backend, float32)
over head dims, GQA ratios, lengths that are not tile multiples and both masks, for every
prefill kernel this GPU has (BLASST_PREFILL_KERNEL). Prints one line per case and exits
non-zero on a mismatch. The thorough tests are tests/gpu.rs; this localises a failure."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from bench import reference_attention  # noqa: E402
from blasst_ctypes import Blasst  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="target/release/libblasst.so")
    a = ap.parse_args()
    bl = Blasst(a.lib)
    kernels = ["default", "mma"] if torch.cuda.get_device_capability()[0] == 9 else ["default"]
    bad = 0
    torch.manual_seed(0)
    for D in (64, 128, 256):
        for (B, Sq, Sk, Hq, Hkv) in ((1, 128, 128, 1, 1), (1, 256, 256, 2, 2), (2, 300, 300, 8, 2),
                                    (1, 200, 1000, 4, 1), (1, 1024, 1024, 4, 4)):
            for causal in (False, True):
                q = torch.randn(B, Sq, Hq, D, device="cuda", dtype=torch.bfloat16)
                k = torch.randn(B, Sk, Hkv, D, device="cuda", dtype=torch.bfloat16)
                v = torch.randn(B, Sk, Hkv, D, device="cuda", dtype=torch.bfloat16)
                ref = reference_attention(q, k, v, causal)
                for kern in kernels:
                    if kern == "mma":
                        os.environ["BLASST_PREFILL_KERNEL"] = "mma"
                    o = torch.zeros(B, Sq, Hq, D, device="cuda", dtype=torch.bfloat16)
                    bl.run(bl.params(q, k, v, o, causal=causal))
                    torch.cuda.synchronize()
                    os.environ.pop("BLASST_PREFILL_KERNEL", None)
                    err = (o.float() - ref).abs()
                    e = err.max().item()
                    ok = e < 3e-2
                    bad += not ok
                    where = ""
                    if not ok:
                        idx = (err > 3e-2).nonzero()
                        where = (f" bad rows {idx[:, 1].unique().tolist()[:12]} heads {idx[:, 2].unique().tolist()[:8]}"
                                 f" cols {idx[:, 3].unique().tolist()[:16]} n={len(idx)}")
                    print(f"{'ok ' if ok else 'BAD'} {kern:7s} d={D} B={B} Sq={Sq} Sk={Sk} H={Hq}/{Hkv} "
                          f"causal={int(causal)} max err {e:.2e}{where}", flush=True)
    print(f"{bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
