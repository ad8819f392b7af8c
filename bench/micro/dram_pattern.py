"""How fast DRAM streams the decode benchmark's KV cache for different ways of cutting it into
CTAs (session 34's question: does decode 16x32K lose its ~2 % to PyTorch SDPA through its
access pattern?). The cache is the benchmark's (and the same at head dim 96: 192-byte rows): K and V of [16, 32768, 8, 128] bf16 (2.15 GB),
heads interleaved, so one KV head's key row is 256 bytes with 2 KB between rows. Each kernel
only reads (ld.global.nc, 16 bytes per thread, U loads of K and U of V in flight per thread)
and folds what it read into a value it never stores unless impossible. A CTA reads G heads' rows
(G x 256 contiguous bytes per key) over 1 / C of the keys; the grid is (C, 8 / G, 16). Dynamic
shared memory (unused) sets CTAs per SM. Also times PyTorch SDPA on the same cache (query
[16, 1, 32, 128]) with its flash and its cuDNN backend and a device copy, in alternation, medians of 5 rounds.
  python3 bench/micro/dram_pattern.py"""
import cupy as cp
import torch
import torch.nn.functional as F

B, L, H, D = 16, 32768, 8, 128
SRC = r"""
extern "C" __global__ void __launch_bounds__(256) rd(const uint4 *__restrict__ K, const uint4 *__restrict__ V,
                                                    unsigned *out, int L, int G, int C, int RW) {
  const int b = blockIdx.z, h0 = blockIdx.y * G, keys = L / C, k0 = blockIdx.x * keys;
  const int per_key = G * RW;  // 16-byte words per key of this CTA (RW per head row)
  const long long total = (long long)keys * per_key;
  unsigned acc = 0;
  for (long long i0 = 0; i0 < total; i0 += 256 * U) {
    uint4 a[U], c[U];
    #pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long i = i0 + u * 256 + threadIdx.x;
      const long long key = i / per_key, w = i % per_key;
      const long long off = (((long long)b * L + k0 + key) * 8 + h0) * RW + w;
      asm volatile("ld.global.nc.L1::no_allocate" PF ".v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a[u].x), "=r"(a[u].y), "=r"(a[u].z), "=r"(a[u].w) : "l"(K + off));
      asm volatile("ld.global.nc.L1::no_allocate" PF ".v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(c[u].x), "=r"(c[u].y), "=r"(c[u].z), "=r"(c[u].w) : "l"(V + off));
    }
    #pragma unroll
    for (int u = 0; u < U; ++u) acc ^= a[u].x ^ a[u].y ^ a[u].z ^ a[u].w ^ c[u].x ^ c[u].y ^ c[u].z ^ c[u].w;
  }
  if (acc == 0x9e3779b9u) out[0] = acc;
}
"""
PFS = {"": "", "64": ".L2::64B", "128": ".L2::128B", "256": ".L2::256B"}  # the loads' L2 prefetch size
mods = {(u, pf): cp.RawModule(code=f'#define U {u}\n#define PF "{q}"\n' + SRC, options=("-arch=sm_90",))
        for u in (8, 16) for pf, q in PFS.items()}
KV = {}
for d in (128, 96):
    KV[d] = (torch.randn(B, L, H, d, device="cuda", dtype=torch.bfloat16),
             torch.randn(B, L, H, d, device="cuda", dtype=torch.bfloat16))
k, v = KV[128]
q = torch.randn(B, 1, 4 * H, D, device="cuda", dtype=torch.bfloat16)
out = torch.zeros(1, device="cuda", dtype=torch.int32)
nbytes = 2 * k.numel() * 2
sms = torch.cuda.get_device_properties(0).multi_processor_count


def launcher(u, G, C, per_sm, pf="", d=128):
    f = mods[(u, pf)].get_function("rd")
    smem = {1: 120 * 1024, 2: 80 * 1024}[per_sm]  # 2 x 120 KB and 3 x 80 KB exceed an SM's 228 KB
    f.max_dynamic_shared_size_bytes = 120 * 1024  # one kernel object per module: the largest request
    grid = (C, H // G, B)
    kd, vd = KV[d]
    args = (cp.uint64(kd.data_ptr()), cp.uint64(vd.data_ptr()), cp.uint64(out.data_ptr()), cp.int32(L),
            cp.int32(G), cp.int32(C), cp.int32(d // 8))
    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)  # noqa

    def run():
        f(grid, (256,), args, shared_mem=smem, stream=stream)
    return run


def sdpa_with(backend):
    def run():
        with torch.nn.attention.sdpa_kernel([backend]):
            F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), enable_gqa=True)
    return run


SDPAS = {"flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION, "cudnn": torch.nn.attention.SDPBackend.CUDNN_ATTENTION}


def timed(fns, iters=20, rounds=5):
    """Each fn timed over `iters` calls, the fns in turn, `rounds` times; medians in seconds."""
    for f in fns:
        f()
    torch.cuda.synchronize()
    res = [[] for _ in fns]
    for _ in range(rounds):
        for i, f in enumerate(fns):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(iters):
                f()
            e1.record()
            e1.synchronize()
            res[i].append(e0.elapsed_time(e1) / 1e3 / iters)
    return [sorted(r)[len(r) // 2] for r in res]


configs = [  # (U, G heads per CTA, C key chunks, CTAs per SM, L2 prefetch, head dim)
    (8, 1, 2, 2, "", 128), (8, 1, 2, 2, "128", 128), (16, 1, 1, 1, "128", 128), (8, 8, 16, 2, "128", 128),
    (8, 1, 2, 2, "", 96), (8, 1, 2, 2, "64", 96), (8, 1, 2, 2, "128", 96),
    (16, 1, 1, 1, "", 96), (16, 1, 1, 1, "64", 96), (16, 1, 1, 1, "128", 96), (8, 8, 16, 2, "128", 96),
]
fns = [launcher(*c) for c in configs]
copy_dst = torch.empty_like(k)
names = [f"d{d} U{u} G{g} C{c} per_sm {s} pf {pf or 0} ({c * (H // g) * B} CTAs)" for u, g, c, s, pf, d in configs]
for rep in range(2):
    ts = timed(fns + [sdpa_with(b) for b in SDPAS.values()] + [lambda: copy_dst.copy_(k)])
    print(f"--- repeat {rep}")
    for n, t in zip(names, ts):
        d = int(n.split()[0][1:])
        print(f"read {n:44} {t * 1e6:8.1f} us {nbytes * d / D / t / 1e12:6.3f} TB/s")
    for i, b in enumerate(SDPAS):
        t = ts[len(fns) + i]
        print(f"torch sdpa decode 16x32K, {b:5}           {t * 1e6:8.1f} us {nbytes / t / 1e12:6.3f} TB/s")
    print(f"device copy of K (read + write)       {ts[-1] * 1e6:8.1f} us {2 * k.numel() * 2 / ts[-1] / 1e12:6.3f} TB/s")
