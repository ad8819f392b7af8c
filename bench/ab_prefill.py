"""Interleaved prefill A/B of several library builds in one process: the same inputs, the builds
timed in turn for several rounds (median per build, bench.py's timeit_interleaved), so clock and
power-cap drift hit every build alike (one build per process moved its ratios by +-4 % from run to
run). bf16, d = 128 (--d64: 64, --d256: 256, --d N: N), 32 heads, batch 1; 8K and 16K non-causal, 8K and
32K causal (--noncausal: 4K-32K non-causal; --paged: K and V in a paged cache of 64-key pages
in shuffled order, as a prefill with cache reads them; --page=N: of N-key pages; --stats: the
sparse skip calls also with skip_stats, as bench.py times them). Prints absolute times and each build's time
relative to the first build, and for the skip calls each build's speedup over its own dense
kernel on the same input (with one build, that is the skip-vs-dense tuning view). Example:
python3 bench/ab_prefill.py target/device-base/libblasst.so target/device-new/libblasst.so
(path:VAR=VALUE sets a variable for one build's calls: see `builds` below)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Builds  # noqa: E402
from bench import paged_cache, skipped_fraction, structured, timeit_interleaved  # noqa: E402

# A build is a library path, optionally with environment settings for its calls:
# path:VAR=VALUE[,VAR=VALUE] (e.g. target/device/libblasst.so:BLASST_PREFILL_KERNEL=mma, a switch
# the library reads at every call: the portable kernel against the Hopper one; session 18's runs
# used a switch of the persistent kernel they measured, BLASST_PREFILL_PERSIST, which the library
# does not have); its name then carries the settings.
builds = Builds([a for i, a in enumerate(sys.argv[1:]) if not a.startswith("--") and sys.argv[i] != "--d"])
bls, names, call = builds.libs, builds.names, builds.run
rounds = 5
# --d N: any head dim the GPU runs (a multiple of 8 up to 256; e.g. 96 runs zero-padded on the
# d = 128 kernel).
D_ARG = next((int(sys.argv[i + 1]) for i, a in enumerate(sys.argv[:-1]) if a == "--d"), None)
H, D = 32, (D_ARG or (64 if "--d64" in sys.argv else 256 if "--d256" in sys.argv else 128))


def ab(label, make_params):
    ps = [make_params(bl) for bl in bls]
    med = timeit_interleaved([lambda i=i, p=p: call(i, p) for i, p in enumerate(ps)], rounds=rounds, min_ms=30.0)
    cells = " | ".join(f"{n} {m * 1e3:6.3f} ms x{med[0] / m:.3f}" for n, m in zip(names, med))
    print(f"{label:<34} {cells}", flush=True)
    return med


def ratios(label, dense, skip):
    """Each build's skip speedup over its own dense time on the same input."""
    cells = " | ".join(f"{n} x{d / s:.3f}" for n, d, s in zip(names, dense, skip))
    print(f"{label:<34} {cells}", flush=True)


# --noncausal: the four benchmark lengths without the mask (what K/V multicast changes).
cases = (((4096, False), (8192, False), (16384, False), (32768, False)) if "--noncausal" in sys.argv
         else ((8192, False), (8192, True), (16384, False), (32768, True)))
PAGE = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("--page=")), 64)
PAGED = "--paged" in sys.argv or any(a.startswith("--page=") for a in sys.argv)
# --stats: each sparse case also times the skip call with skip_stats (the counters' cost).
STATS = "--stats" in sys.argv


def layout(k, v):
    """(k, v, extra params) of the call: as given, or with --paged / --page=N in pages."""
    return paged_cache(k, v, PAGE) if PAGED else (k, v, {})


for S, causal in cases:
    o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
    q, k, v = (torch.randn(1, S, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    k, v, kw = layout(k, v)
    tag = f"S={S} c={int(causal)}"
    dense = ab(f"{tag} dense", lambda bl: bl.params(q, k, v, o, causal=causal, **kw))
    skip = ab(f"{tag} skip, nothing skipped", lambda bl: bl.params(q, k, v, o, causal=causal, factor=1e-30 * S, **kw))
    ratios(f"{tag}   speedup over own dense", dense, skip)
    for hot in (0.5, 0.3, 0.08):
        q, k, v = structured(1, S, H, H, D, hot, seed=S)
        k, v, kw = layout(k, v)
        stats = torch.zeros(2, dtype=torch.int64, device="cuda")
        builds.enter(0)
        frac = skipped_fraction(bls[0], bls[0].params(q, k, v, o, causal=causal, factor=1e-3 * S, stats=stats, **kw),
                                stats)
        dense = ab(f"{tag} dense (hot={hot})", lambda bl: bl.params(q, k, v, o, causal=causal, **kw))
        skip = ab(f"{tag} skip {frac:4.0%} (hot={hot})",
                  lambda bl: bl.params(q, k, v, o, causal=causal, factor=1e-3 * S, **kw))
        ratios(f"{tag}   speedup over own dense", dense, skip)
        if STATS:
            # The same skip call counting into skip_stats, as bench.py's rows and engines that
            # read the counters call it.
            skip_s = ab(f"{tag} skip {frac:4.0%} +stats", lambda bl: bl.params(
                q, k, v, o, causal=causal, factor=1e-3 * S, stats=stats, **kw))
            ratios(f"{tag}   +stats: speedup over own dense", dense, skip_s)
