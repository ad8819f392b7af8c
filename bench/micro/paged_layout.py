"""Where does a paged dense decode call lose 1-4 % against the contiguous one (run 220)? In the
kernel's paged code (the table reads, per-row bounds) or in the order of the pages in memory?
In one process, on Gaussian inputs (bf16, d = 128, 32 query / 8 KV heads, one token), at issue
6's three sizes: the contiguous call, paged calls over 16-, 64- and 256-key pages stored in
shuffled order and in order (the pool then holds exactly the contiguous cache's bytes, so
only the kernel differs), for each build given, and PyTorch SDPA on the contiguous cache, all
timed in alternation (bench.py's timeit_interleaved). Builds as in bench/ab_decode.py
(path[:VAR=VALUE,...]). --pages 16,128 replaces the page sizes (16, 64, 256); --tokens N gives
each sequence N query tokens and --heads HQ/HKV sets the heads (since session 40: the benchmark's
speculative decode is --tokens 4 --heads 32/4 --size 4x32768, 32 packed rows, two row tiles;
SDPA then attends without a mask, as bench.py's).
Usage: python3 bench/micro/paged_layout.py LIB... [--size BxL ...] [--pages P,P,...] [--tokens N] [--heads HQ/HKV]"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Builds, size_args  # noqa: E402
from bench import SDPBackend, paged_cache, sdpa, timeit_interleaved  # noqa: E402

args = sys.argv[1:]


def take(flag, default):
    """The value after `flag` in args (both removed), or `default`."""
    if flag not in args:
        return default
    i = args.index(flag)
    value = args[i + 1]
    del args[i:i + 2]
    return value


pages = tuple(int(x) for x in take("--pages", "16,64,256").split(","))
Hq, Hkv = (int(x) for x in take("--heads", "32/8").split("/"))
lq = int(take("--tokens", "1"))
D = 128
sizes, specs = size_args(args, [(1, 131072), (16, 32768), (64, 8192)])
builds = Builds(specs)
BACKENDS = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
for B, L in sizes:
    torch.manual_seed(B + L)
    q = torch.randn(B, lq, Hq, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, L, Hkv, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    o = torch.empty_like(q)
    gb = 2 * B * L * Hkv * D * 2 / 1e9
    layouts = {"contiguous": (k, v, {})}
    for page in pages:
        for shuffle in (True, False):
            layouts[f"paged {page} {'shuffled' if shuffle else 'in order'}"] = paged_cache(k, v, page, shuffle=shuffle)
    calls = []  # (build, layout name, params); the layouts' tensors outlive them (params hold pointers)
    for i, bl in enumerate(builds.libs):
        builds.enter(i)  # (the workspace size depends on the build's plan)
        for name, (kk, vv, kw) in layouts.items():
            calls.append((i, name, bl.with_workspace(bl.params(q, kk, vv, o, **kw))))
    ref = None
    for i, name, p in calls:
        builds.run(i, p)
        if ref is None:
            ref = o.clone()
        # Same keys and values: every layout and build must give the first call's output.
        err = (o.float() - ref.float()).abs().max().item()
        assert err < 1e-2, f"{B}x{L} {builds.names[i]} {name}: differs from contiguous by {err}"
    fns = [lambda i=i, p=p: builds.run(i, p) for i, _, p in calls] + [lambda: sdpa(q, k, v, False, BACKENDS)]
    t = timeit_interleaved(fns, iters=20)
    for (i, name, _), ti in zip(calls, t):
        t0 = t[[c[0] for c in calls].index(i)]  # this build's contiguous call
        print(f"{B}x{L} {builds.names[i]:<44} {name:<20} {ti * 1e6:7.1f} us {gb / ti:5.0f} GB/s"
              f"  x{t0 / ti:.3f} of its contiguous  x{t[-1] / ti:.3f} of sdpa", flush=True)
    print(f"{B}x{L} torch sdpa (contiguous) {t[-1] * 1e6:7.1f} us {gb / t[-1]:5.0f} GB/s", flush=True)
    del layouts, calls
