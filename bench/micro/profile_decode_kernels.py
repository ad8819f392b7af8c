"""Per-kernel GPU times of split decode calls (torch.profiler): the decode kernel, the split
merge and the start-to-start period, for each library build given. Run from the repository root.
--size BxL (repeatable) replaces the default sizes (1 x 128K, 16 x 32K); dense calls, 32/8 heads
(--heads HQ/HKV other ones); --tokens N gives each sequence N query tokens (speculative decoding).
Prints each kernel's median time and the decode kernel's GB/s of K+V read. On Hopper every kernel
is launched with programmatic dependent launch, so a kernel's span here includes its wait in
griddepcontrol.wait for the kernel before it (run 261: 16 x 32K one-token decode "1406 us" in a
703 us period): read the start-to-start period, not the spans, there.
Example: python3 bench/micro/profile_decode_kernels.py target/device/libblasst.so --size 64x8192"""
import sys

import torch
sys.path.insert(0, "bench")
from blasst_ctypes import Blasst, size_args
from bench import structured
from torch.profiler import profile, ProfilerActivity
args = sys.argv[1:]
sizes, libs = size_args(args, [(1, 131072), (16, 32768)])
LQ = int(args[args.index("--tokens") + 1]) if "--tokens" in args else 1
HQ, HKV = (int(x) for x in args[args.index("--heads") + 1].split("/")) if "--heads" in args else (32, 8)
for lib in libs:
    bl = Blasst(lib)
    for B, L in sizes:
        q, k, v = structured(B, L, HQ, HKV, 128, 0.25, seed=L + B, Sq=LQ, spread=True)
        o = torch.empty(B, LQ, HQ, 128, device="cuda", dtype=torch.bfloat16)
        gb = 2 * B * L * HKV * 128 * 2 / 1e9
        p = bl.with_workspace(bl.params(q, k, v, o))
        for _ in range(20): bl.run(p)
        torch.cuda.synchronize()
        ev = torch.cuda.Event(enable_timing=True); ev2 = torch.cuda.Event(enable_timing=True)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            torch.cuda._sleep(1_000_000)
            for _ in range(50): bl.run(p)
            torch.cuda.synchronize()
        evs = [e for e in prof.events() if e.device_type.name == "CUDA"]
        names = {}
        for e in evs:
            names.setdefault(e.name, []).append(e)
        print(lib, B, L, f"{LQ} tokens, heads {HQ}/{HKV}", "splits", bl.plan(p).num_kv_splits, "block_m", bl.plan(p).block_m)
        for n, es in names.items():
            ts = sorted(x.device_time for x in es)
            med = ts[len(ts) // 2]
            bw = f" {gb / (med * 1e-6):6.0f} GB/s of K+V" if "fwd_decode" in n else ""
            print(f"  {n[:60]:<60} n={len(es)} median {med:.1f} us{bw}")
        # gaps: start of consecutive decode kernels
        dk = sorted([e for e in evs if "decode" in e.name], key=lambda e: e.time_range.start)
        per = [(b.time_range.start - a.time_range.start) for a, b in zip(dk, dk[1:])]
        per.sort()
        print(f"  decode start-to-start median {per[len(per)//2]:.1f} us")
