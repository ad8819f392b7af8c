"""Interleaved decode A/B of several library builds in one process (the decode counterpart of
bench/ab_prefill.py): bf16, d = 128, 32 query / 8 KV heads, one query token, the benchmark's
(batch, KV length) sizes and three of 4 and 8 KV splits, contiguous and paged (64-key pages in
a shuffled pool), each build's dense and Skip-Softmax (hot = 0.25) calls timed in turn with
PyTorch SDPA on the contiguous cache, paged calls too (bench.py's timeit_interleaved: medians of 5 rounds). Prints GB/s of K+V read, each
build's time relative to the first build, and each build's skip speedup over its own dense.
--size BxL (repeatable) replaces the six sizes; --gaussian times the contiguous dense calls (and
the SDPA call timed with them; the paged calls' SDPA keeps the structured inputs) on Gaussian inputs, as bench/bench.py's dense rows do, instead of the structured ones;
--d256 (--d64) runs head dim 256 (64) instead of 128, --d N any head dim the GPU runs (e.g. 96, zero-padded
onto the d = 128 kernel); --tokens N gives each sequence N query tokens
(speculative decoding: N x 4 packed rows per KV head; SDPA then attends without a mask). Example:
python3 bench/ab_decode.py target/device-base/libblasst.so target/device-new/libblasst.so
(a build may carry its own environment: path:VAR=VALUE, see `builds` below)"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Builds, size_args  # noqa: E402
from bench import SDPBackend, sdpa, skipped_fraction, structured, timeit_interleaved  # noqa: E402

args = sys.argv[1:]
# The benchmark's sizes (33, 2 and 1 KV splits), 4 splits in clusters that all fit on an H200
# (7x8K) and 4 and 8 splits whose clusters do not (session 9 missed a 15-32 % regression there).
sizes, specs = size_args(args, [(1, 131072), (16, 32768), (64, 8192), (7, 8192), (8, 8192), (4, 16384)])
# Builds: library paths, each optionally with its own environment (path:VAR=VALUE[,...], e.g.
# target/device/libblasst.so:BLASST_DECODE_KERNEL=mma; blasst_ctypes.Builds).
builds = Builds(specs)
bls, names = builds.libs, builds.names


def prepared(make):
    """Each build's params from make(bl), made under the build's environment (the workspace
    size depends on it)."""
    out = []
    for i, bl in enumerate(bls):
        builds.enter(i)
        out.append(make(bl))
    return out
Hq, Hkv, PAGE = 32, 8, 64
D = (int(args[args.index("--d") + 1]) if "--d" in args
     else 256 if "--d256" in args else 64 if "--d64" in args else 128)
LQ = int(args[args.index("--tokens") + 1]) if "--tokens" in args else 1
BACKENDS = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]


def line(label, gb, times, extra=""):
    cells = " | ".join(f"{n} {t * 1e6:7.1f} us {gb / t:5.0f} GB/s x{times[0] / t:.3f}" for n, t in zip(names, times))
    print(f"{label:<30} {cells}{extra}", flush=True)


for B, L in sizes:
    q, k, v = structured(B, L, Hq, Hkv, D, 0.25, seed=L + B, Sq=LQ, spread=True)
    o = torch.empty(B, LQ, Hq, D, device="cuda", dtype=torch.bfloat16)
    gb = 2 * B * L * Hkv * D * 2 / 1e9
    per = L // PAGE
    perm = torch.randperm(B * per, device="cuda")
    kp = torch.empty(B * per, PAGE, Hkv, D, device="cuda", dtype=k.dtype)
    vp = torch.empty_like(kp)
    kp[perm] = k.reshape(B * per, PAGE, Hkv, D)
    vp[perm] = v.reshape(B * per, PAGE, Hkv, D)
    paged_kw = dict(block_table=perm.view(B, per).int().contiguous(), page_size=PAGE, num_pages=B * per,
                    seqused=torch.full((B,), L, dtype=torch.int32, device="cuda"), max_seqlen_kv=L)
    for paged in (False, True):
        kk, vv, kw = (kp, vp, paged_kw) if paged else (k, v, {})
        tag = f"{B}x{L} {'paged' if paged else 'contig'}"
        gaussian = "--gaussian" in args and not paged
        qd, kd, vd = (torch.randn_like(x) for x in (q, k, v)) if gaussian else (q, kk, vv)
        dense = prepared(lambda bl: bl.with_workspace(bl.params(qd, kd, vd, o, **kw)))
        fns = [lambda i=i, p=p: builds.run(i, p) for i, p in enumerate(dense)]
        # SDPA has no paged form: a paged call is timed next to SDPA on the contiguous cache that
        # holds the same keys and values (what an engine would otherwise run).
        sq, sk, sv = (qd, kd, vd) if not paged else (q, k, v)
        fns.append(lambda: sdpa(sq, sk, sv, False, BACKENDS))
        t = timeit_interleaved(fns, iters=20)
        line(f"{tag} dense{' (gaussian)' if gaussian else ''}", gb, t[:len(bls)], f" | sdpa {t[-1] * 1e6:7.1f} us {gb / t[-1]:5.0f} GB/s")
        print(f"{tag}   dense vs sdpa{' (contiguous)' if paged else ''}: " + " | ".join(f"{n} x{t[-1] / d:.3f}" for n, d in zip(names, t)), flush=True)
        stats = torch.zeros(2, dtype=torch.int64, device="cuda")
        skip = prepared(lambda bl: bl.with_workspace(bl.params(q, kk, vv, o, factor=1e-3 * L, stats=stats, **kw)))
        builds.enter(0)
        frac = skipped_fraction(bls[0], skip[0], stats)
        ts = timeit_interleaved([lambda i=i, p=p: builds.run(i, p) for i, p in enumerate(skip)], iters=20)
        line(f"{tag} skip {frac:4.0%}", gb, ts)
        print(f"{tag}   skip over own dense: " + " | ".join(f"{n} x{d / s_:.3f}" for n, d, s_ in zip(names, t, ts)), flush=True)
