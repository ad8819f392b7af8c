"""What passing `skip_stats` costs a prefill call (each CTA then adds its visited and skipped
counts to two global counters at its end): dense and Skip-Softmax calls with and without the
counters, timed in alternation on the same inputs (bench.py's timeit_interleaved, medians of 5
rounds). bf16, d = 128, 32 heads, batch 1. Usage: python3 bench/micro/skip_stats_cost.py LIB"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Blasst  # noqa: E402
from bench import skipped_fraction, structured, timeit_interleaved  # noqa: E402

bl = Blasst(sys.argv[1])
H, D = 32, 128
for S, causal in ((4096, False), (8192, False), (8192, True), (16384, False)):
    o = torch.empty(1, S, H, D, device="cuda", dtype=torch.bfloat16)
    stats = torch.zeros(2, dtype=torch.int64, device="cuda")
    for hot in (0.5, 0.08):
        q, k, v = structured(1, S, H, H, D, hot, seed=S)
        calls = {
            "dense": bl.params(q, k, v, o, causal=causal),
            "dense+stats": bl.params(q, k, v, o, causal=causal, stats=stats),
            "skip": bl.params(q, k, v, o, causal=causal, factor=1e-3 * S),
            "skip+stats": bl.params(q, k, v, o, causal=causal, factor=1e-3 * S, stats=stats),
        }
        frac = skipped_fraction(bl, calls["skip+stats"], stats)
        t = dict(zip(calls, timeit_interleaved([lambda p=p: bl.run(p) for p in calls.values()], rounds=5, min_ms=30.0)))
        print(f"S={S} c={int(causal)} hot={hot} skipped {frac:4.0%}: "
              + " | ".join(f"{n} {v * 1e3:.3f} ms" for n, v in t.items())
              + f" | stats cost dense {t['dense+stats'] / t['dense'] - 1:+.2%}, skip {t['skip+stats'] / t['skip'] - 1:+.2%}"
              + f" | speedup {t['dense'] / t['skip']:.3f}x without stats, {t['dense'] / t['skip+stats']:.3f}x skip with",
              flush=True)
