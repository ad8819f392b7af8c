"""Issues 5 and 6's targets, met or missed, from a bench.json of bench/bench.py (no GPU needed):
python3 bench/targets.py bench.json. One markdown row per target with the numbers behind it (the
prefill sizes 4K-32K non-causal, then causal; decode 1 x 128K, 16 x 32K, 64 x 8K), the form of
bench/RESULTS.md's "Against the targets" (since session 54, whose run 283 was summed up by hand).
Ratios are blasst's own: Skip-Softmax over blasst dense on the same input, decode dense over
PyTorch SDPA timed with it."""
import json
import sys


def pick(rows, kind, impl_prefix, **key):
    """The row of `kind` whose impl starts with `impl_prefix` and whose fields match `key`."""
    for r in rows:
        if r["kind"] == kind and r["impl"].startswith(impl_prefix) and all(r.get(k) == v for k, v in key.items()):
            return r
    return None


def verdict(ok):
    if not ok:
        return "not in this run"
    n = sum(ok)
    return "**met** everywhere" if n == len(ok) else ("missed everywhere" if n == 0 else f"met at {n} of {len(ok)}")


def main(path):
    d = json.load(open(path))
    rows, info = d["rows"], d["info"]
    out = [f"{info['gpu']}, {info['date']}, {info['dtype']}; device copy {info['copy_gbs'] / 1000:.2f} TB/s", "",
           "| target | result | verdict |", "| --- | --- | --- |"]
    sizes = [(S, c) for c in (False, True) for S in (4096, 8192, 16384, 32768)]

    def prefill_row(label, impl, cell, test=None):
        vals, ok = [], []
        for S, c in sizes:
            r = pick(rows, "prefill", impl, S=S, causal=c)
            if r is None or "error" in r:
                continue
            v, text = cell(r, S, c)
            if v is None:
                continue
            vals.append((c, text))
            ok.append(test is None or test(v))
        nc = ", ".join(t for c, t in vals if not c)
        ca = ", ".join(t for c, t in vals if c)
        if vals:
            out.append(f"| {label} | non-causal {nc}; causal {ca} | {verdict(ok) if test else 'stated'} |")

    def against(impl):
        def cell(r, S, c):
            o = pick(rows, "prefill", impl, S=S, causal=c)
            if o is None or "error" in o:
                return None, None
            v = r["tflops"] / o["tflops"]
            return v, (f"{r['tflops']:.0f} ({v:.2f}x)" if impl == "torch flash" else f"{v:.3f}x")
        return cell

    def skip_ratio(r, S, c):
        return r["vs_dense"], f"{r['vs_dense']:.3f}x at {r['skipped']:.1%}"

    def same_ratio(r, S, c):  # (nothing skipped: no fraction to show)
        return r["vs_dense"], f"{r['vs_dense']:.3f}x"

    prefill_row("prefill dense >= PyTorch flash", "blasst dense", against("torch flash"), lambda v: v >= 1.0)
    prefill_row("gap to cuDNN", "blasst dense", against("torch cudnn"))
    prefill_row("nothing skipped within 3 % of dense", "blasst skip, nothing skipped", same_ratio,
                lambda v: v >= 0.97)
    prefill_row("~50 % skipped >= 1.3x", "blasst skip ~50%", skip_ratio, lambda v: v >= 1.3)
    prefill_row("~70 % skipped >= 1.45x", "blasst skip ~70%", skip_ratio, lambda v: v >= 1.45)

    dec = [(1, 131072), (16, 32768), (64, 8192)]
    copy = info["copy_gbs"]
    for paged in (False, True):
        name = "decode" + (" over 64-key pages" if paged else "")
        bw, vs, skip = [], [], []
        for B, L in dec:
            dn = pick(rows, "decode", "blasst dense", B=B, L=L, paged=paged)
            sd = pick(rows, "decode", "torch sdpa", B=B, L=L, paged=paged)
            sk = pick(rows, "decode", "blasst skip ~70%", B=B, L=L, paged=paged)
            if dn is None or "error" in dn:
                continue
            bw.append(dn["gbs"] / copy)
            if sd is not None:
                vs.append(sd["t_us"] / sd["dense_us_same_input"])
            if sk is not None:
                skip.append((sk["vs_dense"], sk["skipped"]))
        if not bw:
            continue
        out.append(f"| {name} dense >= 85 % of copy | " + " / ".join(f"{v:.1%}" for v in bw)
                   + f" | {verdict([v >= 0.85 for v in bw])} |")
        out.append(f"| {name} dense >= PyTorch SDPA | " + " / ".join(f"{v:.3f}x" for v in vs)
                   + f" | {verdict([v >= 1.0 for v in vs])} |")
        out.append(f"| {name} ~70 % skipped >= 1.35x | " + " / ".join(f"{v:.2f}x at {s:.1%}" for v, s in skip)
                   + f" | {verdict([v >= 1.35 for v, _ in skip])} |")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
