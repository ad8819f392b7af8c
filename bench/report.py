"""Turns a bench.json (bench/bench.py) into the markdown tables of bench/RESULTS.md."""
import json
import sys

# kind -> (title, key column headers, key cells, time header, time cell, rate header, rate cell)
TABLES = {
    "prefill": ("Prefill ({dt}, d = 128, 32 heads, batch 1)", "S | causal",
                lambda r: f"{r['S']} | {int(r['causal'])}",
                "time ms", lambda r: f"{r['t_ms']:.2f}", "TFLOP/s", lambda r: f"{r['tflops']:.0f}"),
    "prefill-paged": ("Prefill with a paged cache ({dt}, d = 128, 32 heads, batch 1, pages in shuffled order; "
                      "dense rows' speedup: against contiguous dense; skip rows': against dense on the same pages)",
                      "S | causal | page keys (0: contiguous)",
                      lambda r: f"{r['S']} | {int(r['causal'])} | {r['page']}",
                      "time ms", lambda r: f"{r['t_ms']:.2f}", "TFLOP/s", lambda r: f"{r['tflops']:.0f}"),
    "decode": ("Decode ({dt}, d = 128, 32 query / 8 KV heads, 1 token)", "batch x KV | paged",
               lambda r: f"{r['B']} x {r['L']} | {int(r['paged'])}",
               "time us", lambda r: f"{r['t_us']:.0f}", "GB/s (K+V read)", lambda r: f"{r['gbs']:.0f}"),
    "decode-spec": ("Speculative decode ({dt}, d = 128, 32 query / 4 KV heads, 4 tokens = 32 packed rows)",
                    "batch x KV | paged", lambda r: f"{r['B']} x {r['L']} | {int(r['paged'])}",
                    "time us", lambda r: f"{r['t_us']:.0f}", "GB/s (K+V read once)", lambda r: f"{r['gbs']:.0f}"),
}


def table(rows, kind, dtype):
    title, keys, key, time_h, time, rate_h, rate = TABLES[kind]
    print(f"### {title.format(dt=dtype)}\n")
    print(f"| {keys} | implementation | {time_h} | {rate_h} | skipped tiles | "
          "speedup vs blasst dense (same input) | max abs err vs dense |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["kind"] != kind:
            continue
        if "error" in r:
            print(f"| {key(r)} | {r['impl']} | error: {r['error'][:60]} | | | | |")
            continue
        sk = f"{r['skipped']:.1%}" if "skipped" in r else "-"
        if "vs_dense" in r:
            vs = f"{r['vs_dense']:.2f}x"
        elif "dense_us_same_input" in r:
            # An SDPA decode row (since session 39): its speed against blasst dense timed in
            # alternation with it (below 1: blasst dense is faster).
            vs = f"{r['dense_us_same_input'] / r['t_us']:.3f}x"
        else:
            vs = "-"
        err = r.get("err", r.get("err_vs_blasst"))
        err = f"{err:.1e}" if err is not None else "-"
        print(f"| {key(r)} | {r['impl']} | {time(r)} | {rate(r)} | {sk} | {vs} | {err} |")


def main(path):
    d = json.load(open(path))
    dt = d["info"].get("dtype", "bf16")  # runs before --dtype existed were bf16
    print(f"GPU {d['info']['gpu']}, torch {d['info']['torch']}, blasst {d['info']['blasst']}, "
          f"{d['info']['date']}; device copy {d['info']['copy_gbs']:.0f} GB/s (read + write).\n")
    table(d["rows"], "prefill", dt)
    print()
    if any(r["kind"] == "prefill-paged" for r in d["rows"]):
        table(d["rows"], "prefill-paged", dt)
        print()
    table(d["rows"], "decode", dt)
    if any(r["kind"] == "decode-spec" for r in d["rows"]):
        print()
        table(d["rows"], "decode-spec", dt)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench.json")
