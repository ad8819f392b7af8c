"""Turns a bench.json (bench/bench.py) into the markdown tables of bench/RESULTS.md."""
import json
import sys


def main(path):
    d = json.load(open(path))
    rows = d["rows"]
    print(f"GPU {d['info']['gpu']}, torch {d['info']['torch']}, blasst {d['info']['blasst']}, "
          f"{d['info']['date']}; device copy {d['info']['copy_gbs']:.0f} GB/s (read + write).\n")
    print("### Prefill (bf16, d = 128, 32 heads, batch 1)\n")
    print("| S | causal | implementation | time ms | TFLOP/s | skipped tiles | speedup vs blasst dense (same input) | max abs err vs dense |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["kind"] != "prefill":
            continue
        if "error" in r:
            print(f"| {r['S']} | {int(r['causal'])} | {r['impl']} | error: {r['error'][:60]} | | | | |")
            continue
        sk = f"{r['skipped']:.1%}" if "skipped" in r else "-"
        vs = f"{r['vs_dense']:.2f}x" if "vs_dense" in r else "-"
        err = r.get("err", r.get("err_vs_blasst"))
        err = f"{err:.1e}" if err is not None else "-"
        print(f"| {r['S']} | {int(r['causal'])} | {r['impl']} | {r['t_ms']:.2f} | {r['tflops']:.0f} | {sk} | {vs} | {err} |")
    print("\n### Decode (bf16, d = 128, 32 query / 8 KV heads, 1 token)\n")
    print("| batch x KV | paged | implementation | time us | GB/s (K+V read) | skipped tiles | speedup vs blasst dense (same input) | max abs err vs dense |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["kind"] != "decode":
            continue
        if "error" in r:
            print(f"| {r['B']} x {r['L']} | {int(r['paged'])} | {r['impl']} | error: {r['error'][:60]} | | | | |")
            continue
        sk = f"{r['skipped']:.1%}" if "skipped" in r else "-"
        vs = f"{r['vs_dense']:.2f}x" if "vs_dense" in r else "-"
        err = r.get("err", r.get("err_vs_blasst"))
        err = f"{err:.1e}" if err is not None else "-"
        print(f"| {r['B']} x {r['L']} | {int(r['paged'])} | {r['impl']} | {r['t_us']:.0f} | {r['gbs']:.0f} | {sk} | {vs} | {err} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench.json")
