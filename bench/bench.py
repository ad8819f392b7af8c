"""Side-by-side benchmark on the GPU machine (SPEC section 10): blasst dense, blasst with
Skip-Softmax at several sparsities, PyTorch SDPA flash and cuDNN, same inputs, one run.

Prefill: bf16, d = 128, 32 heads, batch 1, S = 4K..32K, causal and not -> TFLOP/s
(4*Lq*Lk*H*D per sequence, halved for causal). On Hopper a second dense row times the portable
mma.sync kernel (BLASST_PREFILL_KERNEL=mma) next to the default wgmma one. Decode: bf16, d = 128, 32/8 heads,
(batch, KV) = (1, 128K), (16, 32K), (64, 8K), contiguous and paged -> GB/s of K+V read; on Hopper
a second dense row times the portable decode kernel (BLASST_DECODE_KERNEL=mma).
Sparse rows use the structured generator (sink, local window, retrieval blocks, noise); the
skipped-tile fraction is the kernel's own counter. Writes a JSON file and a PNG plot.
`--dtype fp16` runs every table in fp16 instead (the issues' targets are set in bf16).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from blasst_ctypes import Blasst  # noqa: E402

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:  # pragma: no cover
    SDPBackend = sdpa_kernel = None

# The element type of every benchmark tensor (--dtype; the targets' tables are bf16).
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
DTYPE = torch.bfloat16


def timeit(fn, warmup=3, iters=10, min_ms=20.0, rounds=3):
    """GPU time per call of back-to-back calls, measured with CUDA events: at least `iters` calls
    and at least `min_ms` of GPU time per round (short calls get more iterations, so clock ramps
    and event granularity do not dominate; the warm-up calls give the estimate), the median of
    `rounds` rounds (one slow stretch of the GPU's clock then moves no table row). Host launch
    overhead overlaps the GPU work, as in a serving engine that queues kernels ahead: a short
    device-side sleep before each round's first event lets the host queue the first calls, so
    the time of the first call's host work is not counted (for either library)."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    a.record()
    for _ in range(warmup):
        fn()
    b.record()
    b.synchronize()
    iters = max(iters, math.ceil(min_ms / max(a.elapsed_time(b) / warmup, 1e-3)))
    times = []
    for _ in range(rounds):
        torch.cuda._sleep(1_000_000)  # about 0.5 ms at the H200's clock
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3 / iters)
    return sorted(times)[len(times) // 2]


def timeit_interleaved(fns, rounds=5, **kw):
    """Times the calls `fns` in turn (`rounds` rounds, each one `timeit` round of every call) and
    returns their median times: they see the same clock and power state, so their ratios do not
    move with the GPU's clock (the H200 runs the prefill benchmark at its power cap, 1.5-1.98 GHz
    from moment to moment: bench/runs/session8/run6-smi.log). `bench/ab_prefill.py` uses it for
    several library builds."""
    ts = [[] for _ in fns]
    for _ in range(rounds):
        for t, fn in zip(ts, fns):
            t.append(timeit(fn, rounds=1, **kw))
    return [statistics.median(t) for t in ts]


def paged_cache(k, v, page, spare=0, shuffle=True):
    """k, v [B, L, Hkv, D] moved into page pools of `page` keys in a shuffled order (with
    shuffle=False in order: sequence after sequence, as a contiguous cache), the last page
    of each sequence zero-padded, with `spare` pages no sequence uses: (k pool, v pool, the call's
    paged arguments for Blasst.params)."""
    B, L, Hkv, D = k.shape
    per = (L + page - 1) // page
    n = B * per + spare
    perm = (torch.randperm(n, device="cuda") if shuffle else torch.arange(n, device="cuda"))[:B * per]
    pools = []
    for x in (k, v):
        pool = torch.zeros(n, page, Hkv, D, device="cuda", dtype=x.dtype)
        padded = torch.zeros(B, per * page, Hkv, D, device="cuda", dtype=x.dtype)
        padded[:, :L] = x
        pool[perm] = padded.reshape(B * per, page, Hkv, D)
        pools.append(pool)
    kw = dict(block_table=perm.view(B, per).int().contiguous(), page_size=page, num_pages=n,
              seqused=torch.full((B,), L, dtype=torch.int32, device="cuda"), max_seqlen_kv=L)
    return pools[0], pools[1], kw


def structured(B, S, H, Hkv, D, hot_fraction, margin=12.0, seed=0, Sq=None, spread=False):
    """q [B, Sq, H, D], k/v [B, S, Hkv, D]: hot keys carry q's hot channel (margin nats above
    the N(0,1) noise). Hot 64-key blocks: the first (sink), the last (local window) and random
    (or evenly spread) retrieval blocks up to hot_fraction; 4 hot keys per hot block."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    Sq = S if Sq is None else Sq
    c = math.sqrt(margin * math.sqrt(D))
    q = torch.randn(B, Sq, H, D, device="cuda", generator=g)
    k = torch.randn(B, S, Hkv, D, device="cuda", generator=g)
    v = torch.randn(B, S, Hkv, D, device="cuda", generator=g)
    q[..., 0] = c
    nb = (S + 63) // 64
    if spread:
        step = max(1, round(1 / max(hot_fraction, 1e-6)))
        hb = torch.zeros(B, Hkv, nb, dtype=torch.bool, device="cuda")
        hb[..., ::step] = True
    else:
        hb = torch.rand(B, Hkv, nb, device="cuda", generator=g) < hot_fraction
    hb[..., 0] = True
    hb[..., -1] = True
    off = torch.randint(0, 64, (B, Hkv, nb, 4), device="cuda", generator=g)
    keys = (torch.arange(nb, device="cuda").view(1, 1, nb, 1) * 64 + off).clamp(max=S - 1)
    hot = torch.zeros(B, Hkv, S, dtype=torch.bool, device="cuda")
    hot.scatter_(2, keys.flatten(2), hb.unsqueeze(-1).expand_as(keys).flatten(2))
    k[..., 0] = torch.where(hot.transpose(1, 2), c, 0.0)
    return q.to(DTYPE), k.to(DTYPE), v.to(DTYPE)


def hot_for_sparsity(target, make, frac_of, tol=0.005, steps=12):
    """The structured generator's hot fraction at which the kernel skips `target` of the tiles,
    by bisection on the kernel's own counter (`frac_of(make(hot))`), to within `tol`: the targets'
    "~50 %" and "~70 %" rows are then measured at those sparsities rather than wherever a fixed
    hot fraction lands (46-50 % and 61-70 % in run 131). Returns (hot, measured fraction) of the
    closest probe."""
    lo, hi, best = 0.0, 1.0, None
    for _ in range(steps):
        hot = (lo + hi) / 2
        frac = frac_of(make(hot))
        if best is None or abs(frac - target) < abs(best[1] - target):
            best = (hot, frac)
        if abs(frac - target) <= tol:
            break
        # More hot blocks, fewer skipped tiles.
        lo, hi = (hot, hi) if frac > target else (lo, hot)
    return best


def skipped_fraction(bl, p, stats):
    """One call of `p` (whose skip_stats is `stats`): the fraction of its tiles it skipped."""
    stats.zero_()
    bl.run(p)
    torch.cuda.synchronize()
    s = stats.tolist()
    return s[1] / max(1, s[0])


def skip_row_name(hot, target):
    """A sparse row's label: at a target sparsity (hot fraction found by hot_for_sparsity) or
    at a fixed hot fraction."""
    return f"blasst skip ~{target:.0%} (hot={hot:.3f})" if target else f"blasst skip hot={hot}"


def dense_and_skip(bl, q, k, v, o, factor, causal=False, workspace=False, iters=10):
    """Times blasst dense and Skip-Softmax (`factor`) on the same inputs, one after the other
    (tuning scripts; the benchmark times target pairs in alternation). Returns (dense s,
    skip s, the skip call's skipped fraction)."""
    wrap = bl.with_workspace if workspace else (lambda p: p)
    pd = wrap(bl.params(q, k, v, o, causal=causal))
    td = timeit(lambda: bl.run(pd), iters=iters)
    stats = torch.zeros(2, dtype=torch.int64, device="cuda")
    ps = wrap(bl.params(q, k, v, o, causal=causal, factor=factor, stats=stats))
    frac = skipped_fraction(bl, ps, stats)
    ts = timeit(lambda: bl.run(ps), iters=iters)
    return td, ts, frac


def reference_attention(q, k, v, causal):
    """Float32 attention of [B, S, H, D] tensors, as [B, Sq, Hq, D]: GQA by repeating K/V heads,
    the causal mask bottom-right aligned, as blasst's (SPEC). The checks' reference."""
    Sq, Hq, Sk, Hkv = q.shape[1], q.shape[2], k.shape[1], k.shape[2]
    qt, kt, vt = (t.transpose(1, 2).float() for t in (q, k, v))
    kt = kt.repeat_interleave(Hq // Hkv, 1)
    vt = vt.repeat_interleave(Hq // Hkv, 1)
    mask = None
    if causal:
        i = torch.arange(Sq, device=q.device)[:, None]
        j = torch.arange(Sk, device=q.device)[None, :]
        mask = j <= i + Sk - Sq
    return F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask).transpose(1, 2)


def sdpa(q, k, v, causal, backend):
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    gqa = qt.shape[1] != kt.shape[1]
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, enable_gqa=gqa)


def prefill_skip_fields(bl, pd, p, o, stats, flops):
    """A sparse prefill row's measurements: the dense call `pd` and the skip call `p` (counters
    `stats`) on the same input, both writing `o`: the skip call's time and rate, skipped
    fraction, largest output difference from dense, and its speedup over dense, the two timed in
    alternation."""
    bl.run(pd)
    ref = o.clone()
    frac = skipped_fraction(bl, p, stats)
    err = (o.float() - ref.float()).abs().max().item()
    td, t = timeit_interleaved([lambda: bl.run(pd), lambda: bl.run(p)])
    return dict(t_ms=t * 1e3, tflops=flops / t / 1e12, skipped=frac, vs_dense=td / t, err=err,
                dense_ms_same_input=td * 1e3)


def bench_prefill(bl, sizes, rows):
    H, D = 32, 128
    for S in sizes:
        for causal in (False, True):
            flops = 4 * S * S * H * D / (2 if causal else 1)
            o = torch.empty(1, S, H, D, device="cuda", dtype=DTYPE)
            stats = torch.zeros(2, dtype=torch.int64, device="cuda")
            # Dense rows on random Gaussian inputs.
            q = torch.randn(1, S, H, D, device="cuda", dtype=DTYPE)
            k = torch.randn(1, S, H, D, device="cuda", dtype=DTYPE)
            v = torch.randn(1, S, H, D, device="cuda", dtype=DTYPE)
            p = bl.params(q, k, v, o, causal=causal)
            bl.run(p)
            ref = o.clone()
            # Dense and skip-with-nothing-skipped timed in alternation (their ratio is a target).
            pn = bl.params(q, k, v, o, causal=causal, factor=1e-30 * S, stats=stats)
            t, tn = timeit_interleaved([lambda: bl.run(p), lambda: bl.run(pn)])
            dense_t = t
            base = dict(kind="prefill", S=S, causal=causal)
            rows.append(dict(base, impl="blasst dense", t_ms=t * 1e3, tflops=flops / t / 1e12, skipped=0.0))
            if torch.cuda.get_device_capability()[0] == 9:
                # The mma.sync kernel that sm_90a does not use by default, for comparison.
                os.environ["BLASST_PREFILL_KERNEL"] = "mma"
                t = timeit(lambda: bl.run(p))
                del os.environ["BLASST_PREFILL_KERNEL"]
                rows.append(dict(base, impl="blasst dense (mma.sync kernel)", t_ms=t * 1e3,
                                 tflops=flops / t / 1e12, skipped=0.0))
            frac = skipped_fraction(bl, pn, stats)
            t = tn
            rows.append(dict(base, impl="blasst skip, nothing skipped", t_ms=t * 1e3, tflops=flops / t / 1e12,
                             skipped=frac, vs_dense=dense_t / t,
                             err=(o.float() - ref.float()).abs().max().item()))
            for name, backend in (("torch flash", SDPBackend.FLASH_ATTENTION), ("torch cudnn", SDPBackend.CUDNN_ATTENTION)):
                try:
                    out = sdpa(q, k, v, causal, backend)
                    t = timeit(lambda: sdpa(q, k, v, causal, backend))
                    err = (out.transpose(1, 2).float() - ref.float()).abs().max().item()
                    rows.append(dict(base, impl=name, t_ms=t * 1e3, tflops=flops / t / 1e12, err_vs_blasst=err))
                except Exception as e:  # noqa: BLE001
                    rows.append(dict(base, impl=name, error=str(e)[:200]))
            # Sparse rows on structured inputs (threshold 1e-3): at the targets' ~50 % and ~70 %
            # skipped tiles (hot fraction found by bisection), then at two fixed hot fractions.
            thr = 1e-3
            make = lambda hot: structured(1, S, H, H, D, hot, seed=S)  # noqa: E731
            frac_of = lambda qkv: skipped_fraction(  # noqa: E731
                bl, bl.params(*qkv, o, causal=causal, factor=thr * S, stats=stats), stats)
            sparse = [(hot_for_sparsity(tg, make, frac_of)[0], tg) for tg in (0.5, 0.7)]
            for hot, target in sparse + [(0.15, None), (0.08, None)]:
                q, k, v = make(hot)
                pd = bl.params(q, k, v, o, causal=causal)
                p = bl.params(q, k, v, o, causal=causal, factor=thr * S, stats=stats)
                rows.append(dict(base, impl=f"{skip_row_name(hot, target)} thr={thr}", target=target,
                                 **prefill_skip_fields(bl, pd, p, o, stats, flops)))
            print(time.strftime("# %H:%M:%S"), json.dumps([r for r in rows if r.get("S") == S and r.get("causal") == causal]), flush=True)


def bench_paged_prefill(bl, cases, rows, pages=(64, 16)):
    """Prefill reading K and V from a paged cache (prefill with cache, as an engine with prefix
    caching runs it; pages in shuffled order, `paged_cache`): bf16, d = 128, 32 heads, batch 1.
    Dense on Gaussian inputs, contiguous and at each page size, timed in alternation (their
    rows' "vs_dense" is against the contiguous dense call); Skip-Softmax at ~50 % and ~70 %
    skipped tiles (hot fraction found on the first page size) against dense on the same paged
    input, timed in alternation."""
    H, D = 32, 128
    for S, causal in cases:
        flops = 4 * S * S * H * D / (2 if causal else 1)
        o = torch.empty(1, S, H, D, device="cuda", dtype=DTYPE)
        stats = torch.zeros(2, dtype=torch.int64, device="cuda")
        base = dict(kind="prefill-paged", S=S, causal=causal)
        q, k, v = (torch.randn(1, S, H, D, device="cuda", dtype=DTYPE) for _ in range(3))
        ps = [bl.params(q, k, v, o, causal=causal)]
        for page in pages:
            kp, vp, kw = paged_cache(k, v, page)
            ps.append(bl.params(q, kp, vp, o, causal=causal, **kw))
        ts = timeit_interleaved([lambda p=p: bl.run(p) for p in ps])
        for page, t in zip((0,) + tuple(pages), ts):
            rows.append(dict(base, page=page, impl="blasst dense", t_ms=t * 1e3, tflops=flops / t / 1e12,
                             skipped=0.0, vs_dense=ts[0] / t))
        thr = 1e-3
        make = lambda hot: structured(1, S, H, H, D, hot, seed=S)  # noqa: E731

        def frac_of(qkv, page=pages[0]):
            kp, vp, kw = paged_cache(qkv[1], qkv[2], page)
            return skipped_fraction(bl, bl.params(qkv[0], kp, vp, o, causal=causal, factor=thr * S, stats=stats, **kw), stats)
        for target in (0.5, 0.7):
            hot = hot_for_sparsity(target, make, frac_of)[0]
            q, k, v = make(hot)
            for page in pages:
                kp, vp, kw = paged_cache(k, v, page)
                pd = bl.params(q, kp, vp, o, causal=causal, **kw)
                p = bl.params(q, kp, vp, o, causal=causal, factor=thr * S, stats=stats, **kw)
                rows.append(dict(base, page=page, impl=f"{skip_row_name(hot, target)} thr={thr}", target=target,
                                 **prefill_skip_fields(bl, pd, p, o, stats, flops)))
        print(time.strftime("# %H:%M:%S"), json.dumps([r for r in rows if r["kind"] == "prefill-paged" and r["S"] == S]), flush=True)


def bench_decode(bl, configs, rows, page_size=64, heads=(32, 8), lq=1, kind="decode"):
    """Decode rows of `kind`: `lq` query tokens per sequence (lq > 1: speculative decoding,
    lq x Hq / Hkv packed rows per KV head), `heads` = (query heads, KV heads)."""
    (Hq, Hkv), D = heads, 128
    for B, L in configs:
        # The output and counters of every call of this size; the hot fraction of the ~70 % rows,
        # found on the contiguous cache (threshold 1e-3).
        o = torch.empty(B, lq, Hq, D, device="cuda", dtype=DTYPE)
        stats = torch.zeros(2, dtype=torch.int64, device="cuda")
        hot70 = hot_for_sparsity(0.7, lambda hot: structured(B, L, Hq, Hkv, D, hot, seed=L + B, Sq=lq),
                                 lambda qkv: skipped_fraction(
                                     bl, bl.with_workspace(bl.params(*qkv, o, factor=1e-3 * L, stats=stats)), stats))[0]
        for paged in (False, True):
            kvbytes = 2 * B * L * Hkv * D * 2
            base = dict(kind=kind, B=B, L=L, paged=paged)
            # (hot fraction, evenly spread hot blocks, target): dense on Gaussian inputs; hot blocks
            # every 2nd and 8th tile; random hot blocks at the target's ~70 % skipped tiles.
            for hot, spread, target in ((None, None, None), (0.5, True, None), (hot70, False, 0.7), (0.12, True, None)):
                if hot is None:
                    q = torch.randn(B, lq, Hq, D, device="cuda", dtype=DTYPE)
                    k = torch.randn(B, L, Hkv, D, device="cuda", dtype=DTYPE)
                    v = torch.randn(B, L, Hkv, D, device="cuda", dtype=DTYPE)
                else:
                    q, k, v = structured(B, L, Hq, Hkv, D, hot, seed=L + B, Sq=lq, spread=spread)
                kk, vv, kw = paged_cache(k, v, page_size) if paged else (k, v, {})
                pd = bl.with_workspace(bl.params(q, kk, vv, o, **kw))
                bl.run(pd)
                ref = o.clone()
                if hot is None:
                    t_sdpa = sdpa_err = None
                    # Dense and SDPA timed in alternation (dense >= SDPA is a target, paged caches
                    # included). SDPA has no paged form: a paged call's SDPA row is SDPA on the
                    # contiguous cache k, v that holds the same keys and values (since session 39;
                    # before, paged dense was timed alone and had no SDPA row).
                    backends = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION,
                                SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH] if SDPBackend else None
                    try:
                        out = sdpa(q, k, v, False, backends)
                        sdpa_err = (out.transpose(1, 2).float() - ref.float()).abs().max().item()
                        td, t_sdpa = timeit_interleaved([lambda: bl.run(pd), lambda: sdpa(q, k, v, False, backends)], iters=20)
                    except Exception as e:  # noqa: BLE001
                        sdpa_err = str(e)[:200]
                        td = timeit(lambda: bl.run(pd), iters=20)
                    rows.append(dict(base, impl="blasst dense", t_us=td * 1e6, gbs=kvbytes / td / 1e9, skipped=0.0))
                    if torch.cuda.get_device_capability()[0] == 9:
                        # The portable mma.sync decode kernel, for comparison.
                        os.environ["BLASST_DECODE_KERNEL"] = "mma"
                        t = timeit(lambda: bl.run(pd), iters=20)
                        del os.environ["BLASST_DECODE_KERNEL"]
                        rows.append(dict(base, impl="blasst dense (mma.sync kernel)", t_us=t * 1e6,
                                         gbs=kvbytes / t / 1e9, skipped=0.0))
                    sdpa_name = "torch sdpa (contiguous cache)" if paged else "torch sdpa"
                    if t_sdpa is not None:
                        rows.append(dict(base, impl=sdpa_name, t_us=t_sdpa * 1e6, gbs=kvbytes / t_sdpa / 1e9,
                                         err_vs_blasst=sdpa_err, dense_us_same_input=td * 1e6))
                    elif sdpa_err is not None:
                        rows.append(dict(base, impl=sdpa_name, error=sdpa_err))
                    continue
                p = bl.with_workspace(bl.params(q, kk, vv, o, factor=1e-3 * L, stats=stats, **kw))
                frac = skipped_fraction(bl, p, stats)
                err = (o.float() - ref.float()).abs().max().item()
                td, t = timeit_interleaved([lambda: bl.run(pd), lambda: bl.run(p)], iters=20)
                rows.append(dict(base, impl=skip_row_name(hot, target), t_us=t * 1e6, gbs=kvbytes / t / 1e9, skipped=frac,
                                 vs_dense=td / t, err=err, dense_us_same_input=td * 1e6, target=target))
            print(time.strftime("# %H:%M:%S"), json.dumps([r for r in rows if r.get("kind") == kind and r.get("B") == B and r.get("L") == L and r.get("paged") == paged]), flush=True)


def copy_bandwidth():
    x = torch.empty(2 * 1024**3, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    t = timeit(lambda: y.copy_(x))
    return 2 * x.numel() / t / 1e9


def plot(rows, path, dtype):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, kind in zip(axes, ("prefill", "decode")):
        pts = [r for r in rows if r.get("kind") == kind and "vs_dense" in r and r["skipped"] > 0.01]
        xs = [r["skipped"] for r in pts]
        ys = [r["vs_dense"] for r in pts]
        ax.scatter(xs, ys, s=14)
        s = [i / 100 for i in range(0, 96)]
        bound = [1 / (1 - x / 2) for x in s]  # Q K^T (prefill) or K (decode) always runs
        ax.plot(s, bound, "k--", lw=0.8, label="ceiling 1/(1 - s/2)")
        ax.set_xlabel("measured skipped-tile fraction")
        ax.set_ylabel("speedup vs blasst dense")
        ax.set_title(f"{kind} ({torch.cuda.get_device_name()}, {dtype}, d=128)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="target/release/libblasst.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--decode-only", action="store_true")
    ap.add_argument("--prefill-only", action="store_true")
    ap.add_argument("--paged-prefill-only", action="store_true")
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="bf16",
                    help="element type of Q, K, V and O (the issues' targets are bf16)")
    a = ap.parse_args()
    global DTYPE
    DTYPE = DTYPES[a.dtype]
    bl = Blasst(a.lib)
    rows = []
    info = dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__, blasst=bl.version,
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), dtype=a.dtype)
    info["copy_gbs"] = copy_bandwidth()
    print(json.dumps(info), flush=True)
    sizes = [4096, 8192] if a.quick else [4096, 8192, 16384, 32768]
    paged_cases = [(16384, False), (32768, True)]
    if a.paged_prefill_only:
        bench_paged_prefill(bl, paged_cases, rows)
    elif not a.decode_only:
        bench_prefill(bl, sizes, rows)
        bench_paged_prefill(bl, paged_cases[:1] if a.quick else paged_cases, rows)
    configs = [(1, 131072), (16, 32768), (64, 8192)]
    if not (a.prefill_only or a.paged_prefill_only):
        bench_decode(bl, configs, rows)
        # Speculative decoding: 4 query tokens x GQA 8 = 32 packed rows per KV head (on Hopper
        # two row tiles of the Hopper decode kernel; the mma.sync row: one tile of the portable
        # kernel).
        bench_decode(bl, [(4, 32768)], rows, heads=(32, 4), lq=4, kind="decode-spec")
    name = os.environ.get("BENCH_NAME", "bench")
    with open(os.path.join(a.out, name + ".json"), "w") as f:
        json.dump(dict(info=info, rows=rows), f, indent=1)
    if not a.paged_prefill_only:
        plot(rows, os.path.join(a.out, "speedup_vs_sparsity.png"), a.dtype)


if __name__ == "__main__":
    main()
