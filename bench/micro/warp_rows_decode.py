"""Prototype for speculative decode (several row tiles per KV head): one CTA per (KV head, split,
sequence) holding all its packed rows, each of 4 consumer warps one 8-row tile over all 64 keys
of every KV tile, with its own running max and decisions (no row-max exchange between warps, no
CTA barrier in the loop, no partial-O merge), and a producer warp that copies K and V into a
ring (cp.async, completing on mbarriers; the consumers free a slot on its empty barrier). The
question (session 45): the library's Hopper decode kernel runs 32 packed rows as two 16-row
tiles of one CTA each, ~2 us per KV tile per CTA, bound by each CTA's dependent chain (runs 244,
249); does a kernel whose warps walk independent chains reach DRAM's rate instead?
Dense only (the same arithmetic as kernels/decode_sm90.cu: S^T = K Q^T with m16n8k16, exp2 with
the running max, P^T by movmatrix, O^T += V^T P^T), bf16, d = 128, contiguous [B, L, Hkv, D],
no mask, L a multiple of 64 x splits. Checks the output against float32 attention, then times
it (CUDA events, medians) next to PyTorch SDPA; the library's time comes from
bench/micro/paged_layout.py or bench/ab_decode.py on the same sizes.
  python3 bench/micro/warp_rows_decode.py [--tokens 4 --heads 32/4 --size 4x32768 ...]"""
import math
import sys

import cupy as cp
import torch
import torch.nn.functional as F

SRC = r"""
typedef unsigned int u32;
typedef unsigned long long u64;
#define D 128
#define CH 16
#define DBN 64
#define TILE (DBN * D * 2)
#define NEG_INF (-__int_as_float(0x7f800000))
__device__ __forceinline__ u32 smem_u32(const void *p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ u32 swz(int row, int chunk) { return (u32)(row * CH + (chunk ^ (row & 7))) * 16u; }
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  u32 ok = 0;
  while (!ok)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void cp16(u32 dst, const void *src) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_arrive(u32 bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void ldsm4(u32 *r, u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm4t(u32 *r, u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float *d, const u32 *a, u32 b0, u32 b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ u32 movt(u32 x) {
  u32 y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
  return y;
}
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// grid (Hkv, splits, B), 32 * (NW + 1) threads: warps 0 .. NW - 1 consume (rows 8w .. 8w + 7 of
// the G * T packed rows of KV head kh: row r = token r / G, head kh * G + r % G), warp NW copies.
extern "C" __global__ void __launch_bounds__(32 * (NW + 1), CTAS) warp_rows(
    const unsigned short *__restrict__ q, const unsigned short *__restrict__ k, const unsigned short *__restrict__ v,
    float *ws_o, float *ws_lse, int L, int T, int Hkv, int G, int splits, float scale_log2) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int kh = blockIdx.x, split = blockIdx.y, b = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const u32 sK = smem_u32(smem), sV = sK + ST * TILE;
  const u32 bars = sV + ST * TILE;  // kfull[ST] kempty[ST] vfull[ST] vempty[ST]
#define KFULL(s) (bars + 8 * (s))
#define KEMPTY(s) (bars + 8 * (ST + (s)))
#define VFULL(s) (bars + 8 * (2 * ST + (s)))
#define VEMPTY(s) (bars + 8 * (3 * ST + (s)))
  const int tiles = L / DBN, per = (tiles + splits - 1) / splits, lo = split * per, n = min(per, tiles - lo);
  if (n <= 0) return;
  if (threadIdx.x == 0) {
    for (int s = 0; s < ST; ++s) {
      mbar_init(KFULL(s), 32); mbar_init(VFULL(s), 32);
      mbar_init(KEMPTY(s), NW); mbar_init(VEMPTY(s), NW);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const long long rs = (long long)Hkv * D;  // elements between keys
  if (warp == NW) {
    // Producer: tile it (key tile lo + n - 1 - it, last to first) into slot it % ST.
    const unsigned short *kb = k + ((long long)b * L) * rs + (long long)kh * D + (lane % 16) * 8;
    const unsigned short *vb = v + ((long long)b * L) * rs + (long long)kh * D + (lane % 16) * 8;
    for (int it = 0; it < n; ++it) {
      const int s = it % ST, j = lo + n - 1 - it;
      const u32 par = (u32)((it / ST) - 1) & 1u;
      const long long row0 = (long long)j * DBN;
      if (it >= ST) mbar_wait(KEMPTY(s), par);
      #pragma unroll 8
      for (int i = 0; i < 32; ++i) {
        const int r = 2 * i + lane / 16;
        cp16(sK + s * TILE + swz(r, lane % 16), kb + (row0 + r) * rs);
      }
      cp_arrive(KFULL(s));
      if (it >= ST) mbar_wait(VEMPTY(s), par);
      #pragma unroll 8
      for (int i = 0; i < 32; ++i) {
        const int r = 2 * i + lane / 16;
        cp16(sV + s * TILE + swz(r, lane % 16), vb + (row0 + r) * rs);
      }
      cp_arrive(VFULL(s));
    }
    return;
  }
  // Consumer warp: Q^T B fragments of its 8 rows (row lane / 4).
  const int R = G * T;
  const int myrow = warp * 8 + lane / 4;
  u32 qb[8][2];
  {
    const bool ok = myrow < R;
    const int tok = myrow / G, head = kh * G + myrow % G;
    const unsigned short *qp = q + (((long long)b * T + tok) * (Hkv * G) + head) * D + 2 * (lane % 4);
    #pragma unroll
    for (int ks = 0; ks < 8; ++ks) {
      qb[ks][0] = ok ? *(const u32 *)(qp + ks * 16) : 0u;
      qb[ks][1] = ok ? *(const u32 *)(qp + ks * 16 + 8) : 0u;
    }
  }
  float m_run[2] = {NEG_INF, NEG_INF}, lw[2] = {0.f, 0.f};
  float O[8][4];
  #pragma unroll
  for (int i = 0; i < 8; ++i) O[i][0] = O[i][1] = O[i][2] = O[i][3] = 0.f;
  for (int it = 0; it < n; ++it) {
    const int s = it % ST;
    const u32 par = (u32)(it / ST) & 1u;
    mbar_wait(KFULL(s), par);
    const u32 kbuf = sK + s * TILE;
    float S[4][4], S2[4][4];
    #pragma unroll
    for (int mb = 0; mb < 4; ++mb)
      #pragma unroll
      for (int i = 0; i < 4; ++i) S[mb][i] = S2[mb][i] = 0.f;
    #pragma unroll
    for (int ks = 0; ks < 8; ++ks) {
      #pragma unroll
      for (int mb = 0; mb < 4; ++mb) {
        u32 a[4];
        ldsm4(a, kbuf + swz(mb * 16 + lane % 16, ks * 2 + lane / 16));
        mma((ks & 1) ? S2[mb] : S[mb], a, qb[ks][0], qb[ks][1]);
      }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(KEMPTY(s));
    float tmax[2];
    #pragma unroll
    for (int e = 0; e < 2; ++e) {
      float mx = NEG_INF;
      #pragma unroll
      for (int mb = 0; mb < 4; ++mb) {
        S[mb][e] += S2[mb][e];
        S[mb][2 + e] += S2[mb][2 + e];
        mx = fmaxf(mx, fmaxf(S[mb][e], S[mb][2 + e]));
      }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 4));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 8));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 16));
      tmax[e] = mx;
    }
    u32 pb[4][2];
    #pragma unroll
    for (int e = 0; e < 2; ++e) {
      const float mn = fmaxf(m_run[e], tmax[e]);
      const float ms = mn * scale_log2;
      const float al = m_run[e] == NEG_INF ? 0.f : ex2(m_run[e] * scale_log2 - ms);
      float sum = 0.f;
      #pragma unroll
      for (int mb = 0; mb < 4; ++mb) {
        S[mb][e] = ex2(S[mb][e] * scale_log2 - ms);
        S[mb][2 + e] = ex2(S[mb][2 + e] * scale_log2 - ms);
        sum += S[mb][e] + S[mb][2 + e];
      }
      lw[e] = lw[e] * al + sum;
      m_run[e] = mn;
      if (al != 1.f) {
        #pragma unroll
        for (int md = 0; md < 8; ++md) O[md][e] *= al, O[md][2 + e] *= al;
      }
    }
    #pragma unroll
    for (int mb = 0; mb < 4; ++mb) {
      pb[mb][0] = movt(pack2(S[mb][0], S[mb][1]));
      pb[mb][1] = movt(pack2(S[mb][2], S[mb][3]));
    }
    mbar_wait(VFULL(s), par);
    const u32 vbuf = sV + s * TILE;
    #pragma unroll
    for (int md = 0; md < 8; ++md) {
      #pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        u32 a[4];
        ldsm4t(a, vbuf + swz(kk * 16 + lane % 8 + 8 * (lane / 16), md * 2 + (lane / 8) % 2));
        mma(O[md], a, pb[kk][0], pb[kk][1]);
      }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(VEMPTY(s));
  }
  // Row sums over the lanes that share rows, then this split's normalised rows and LSE.
  #pragma unroll
  for (int e = 0; e < 2; ++e) {
    float l = lw[e];
    l += __shfl_xor_sync(0xffffffffu, l, 4);
    l += __shfl_xor_sync(0xffffffffu, l, 8);
    l += __shfl_xor_sync(0xffffffffu, l, 16);
    const int row = warp * 8 + 2 * (lane % 4) + e;
    if (row >= R) continue;
    const long long base = (((long long)split * gridDim.z + b) * Hkv + kh) * R + row;
    const float inv = 1.f / l;
    #pragma unroll
    for (int md = 0; md < 8; ++md) {
      ws_o[base * D + md * 16 + lane / 4] = O[md][e] * inv;
      ws_o[base * D + md * 16 + 8 + lane / 4] = O[md][2 + e] * inv;
    }
    if (lane / 4 == 0) ws_lse[base] = m_run[e] * scale_log2 * 0.6931471805599453f + logf(l);
  }
}
"""


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


T = int(arg("--tokens", "4"))
Hq, Hkv = map(int, arg("--heads", "32/4").split("/"))
G = Hq // Hkv
sizes = [tuple(map(int, s.split("x"))) for i, s in enumerate(sys.argv) if i > 0 and sys.argv[i - 1] == "--size"] or [(4, 32768), (1, 131072), (16, 32768)]
D = 128
NW = (G * T + 7) // 8
assert NW <= 4, "the prototype holds at most 32 packed rows per CTA"


def median_time(fn, reps=20, rounds=5):
    ts = []
    for _ in range(rounds):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        fn()
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / reps * 1e-3)
    ts.sort()
    return ts[len(ts) // 2]


for (st, ctas) in [(2, 3), (3, 2), (2, 4)] if "--configs" in sys.argv else [(2, 3)]:
    mod = cp.RawModule(code=f"#define NW {NW}\n#define ST {st}\n#define CTAS {ctas}\n" + SRC, options=("-arch=sm_90",))
    fn = mod.get_function("warp_rows")
    smem = st * 2 * 64 * D * 2 + 4 * st * 8
    fn.max_dynamic_shared_size_bytes = smem
    for B, L in sizes:
        torch.manual_seed(0)
        q = torch.randn(B, T, Hq, D, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, L, Hkv, D, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, L, Hkv, D, device="cuda", dtype=torch.bfloat16)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        splits = max(1, (sms * ctas) // (B * Hkv))
        per = -(-(L // 64) // splits)
        splits = -(-(L // 64) // per)  # every split holds tiles
        ws_o = torch.empty(splits, B, Hkv, G * T, D, device="cuda", dtype=torch.float32)
        ws_lse = torch.empty(splits, B, Hkv, G * T, device="cuda", dtype=torch.float32)
        scale = 1 / math.sqrt(D)

        def run():
            fn((Hkv, splits, B), (32 * (NW + 1),), (q.data_ptr(), k.data_ptr(), v.data_ptr(), ws_o.data_ptr(), ws_lse.data_ptr(),
                                                  cp.int32(L), cp.int32(T), cp.int32(Hkv), cp.int32(G), cp.int32(splits),
                                                  cp.float32(scale * 1.4426950408889634)), shared_mem=smem,
               stream=cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream))

        run()
        torch.cuda.synchronize()
        w = torch.softmax(ws_lse, dim=0).unsqueeze(-1)
        out = (ws_o * w).sum(0)  # [B, Hkv, R, D], row r = token r // G, head kh * G + r % G
        out = out.view(B, Hkv, T, G, D).permute(0, 2, 1, 3, 4).reshape(B, T, Hq, D)
        ref = F.scaled_dot_product_attention(q.float().transpose(1, 2), k.float().repeat_interleave(G, 2).transpose(1, 2),
                                             v.float().repeat_interleave(G, 2).transpose(1, 2)).transpose(1, 2)
        err = (out - ref).abs().max().item()
        t = median_time(run)
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        ts = median_time(lambda: F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True))
        gb = 2 * B * L * Hkv * D * 2 / 1e9
        print(f"{B}x{L} tokens {T} heads {Hq}/{Hkv} ring {st} ctas/SM {ctas} splits {splits}: {t * 1e6:7.1f} us "
              f"{gb / t:6.0f} GB/s, max err {err:.2e} | sdpa {ts * 1e6:7.1f} us", flush=True)
