"""What one blasst_attn_run costs the calling thread (host time per call, kernels that are too
short to hide it): small decode and prefill calls issued back to back without waiting, so the
host is the bottleneck and wall time per call is the host's cost. Several library builds in
turn (rounds, median per build), e.g. before and after a change to the host checks. bf16,
d = 128. Usage: python3 bench/micro/host_overhead.py LIB [LIB...]
The times include ctypes, and a call whose kernel runs longer than its host path is bound by the
GPU instead (this script's prefill row read 9.7 us and 16.3 us with one library in runs 153-154):
examples/host_cost.rs times the host path in Rust, in bursts the launch queue absorbs, next to a
bare launch (bench/RESULTS.md, session 23)."""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from blasst_ctypes import Builds  # noqa: E402

builds = Builds(sys.argv[1:])
D = 128
cases = {
    # (batch, query tokens, KV length, query heads, KV heads)
    "decode 1 x 1K, GQA 32/8": (1, 1, 1024, 32, 8),
    "decode 8 x 4K, GQA 32/8": (8, 1, 4096, 32, 8),
    "prefill 1 x 256, 8 heads": (1, 256, 256, 8, 8),
}
N, rounds = 2000, 5
for label, (B, lq, lk, hq, hkv) in cases.items():
    q = torch.randn(B, lq, hq, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, lk, hkv, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    o = torch.empty_like(q)
    ps = []
    for i, bl in enumerate(builds.libs):
        builds.enter(i)
        ps.append(bl.with_workspace(bl.params(q, k, v, o)))
    times = [[] for _ in ps]
    for _ in range(rounds):
        for i, p in enumerate(ps):
            builds.run(i, p)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(N):
                builds.run(i, p)
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            times[i].append((t1 - t0) / N)
    cells = " | ".join(f"{n} {statistics.median(t) * 1e6:6.2f} us" for n, t in zip(builds.names, times))
    print(f"{label:<28} host time per call: {cells}", flush=True)
