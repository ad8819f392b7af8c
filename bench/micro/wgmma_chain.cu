// Microbenchmark: how long does a warpgroup's chain of dependent wgmma instructions take, alone
// and next to another chain (second accumulator, or the other warpgroup)? Answers whether a
// prefill visit's Q K^T (8 dependent m64n64k16 wgmmas on one accumulator, d = 128) is bound by
// tensor throughput or by the latency of the accumulator chain.
// Build and run on the GPU machine: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a \
//   bench/micro/wgmma_chain.cu -o /tmp/wgmma_chain && /tmp/wgmma_chain
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

typedef uint32_t u32;
typedef uint64_t u64;

__device__ __forceinline__ u64 desc(u32 addr) {
  // 128-byte swizzle, K-major: leading byte offset 16, stride byte offset 1024.
  return (u64)((addr & 0x3FFFFu) >> 4) | ((u64)(16 >> 4) << 16) | ((u64)(1024 >> 4) << 32) | (1ull << 62);
}
#define ACC32(d) "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
__device__ __forceinline__ void mma64(float (&d)[32], u64 a, u64 b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "
               "%32, %33, 1, 1, 1, 0, 0;\n" : ACC32(d) : "l"(a), "l"(b));
}
// m64n128k16, both operands in shared memory: the Q K^T step of today's 128-key visits
// (session 57's MODE 3).
#define ACC64(d) ACC32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), \
  "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), \
  "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
__device__ __forceinline__ void mma128(float (&d)[64], u64 a, u64 b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
               "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
               "%64, %65, 1, 1, 1, 0, 0;\n" : ACC64(d) : "l"(a), "l"(b));
}
// A 128-key visit's Q K^T as the prefill kernel issues it since session 17: 8 k-steps of
// m64n128k16 into `w`, Q's column blocks 128 rows x 128 bytes apart, K's 128 rows apart.
__device__ __forceinline__ void qk_chain128(float (&w)[64], u64 da, u64 db) {
#pragma unroll
  for (int k = 0; k < 8; ++k) mma128(w, da + (u64)(((k / 4) * 16384 + (k % 4) * 32) >> 4), db + (u64)(((k / 4) * 16384 + (k % 4) * 32) >> 4));
}
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }

// The operands: 64 KB of bf16 values from the 1024-byte aligned start of the dynamic shared
// memory (its address returned), made visible to the tensor cores' async proxy; all threads.
__device__ __forceinline__ u32 fill_operands(unsigned char *smem) {
  u32 base = (u32)__cvta_generic_to_shared(smem);
  base = (base + 1023) & ~1023u;
  for (int i = threadIdx.x; i < 65536 / 4; i += blockDim.x) ((u32 *)(smem + (base - (u32)__cvta_generic_to_shared(smem))))[i] = 0x3c003c00u ^ (i * 2654435761u & 0x00ff00ffu);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  return base;
}

// mode 0: one chain of KS wgmmas; 1: two chains of KS/2 (two accumulators, interleaved);
// 2: two chains of KS (two visits' Q K^T at once); 3: qk_chain128, one chain of 8 (KS)
// m64n128k16: the Q K^T of a 128-key visit.
template <int MODE, int KS>
__global__ void __launch_bounds__(256, 1) bench(float *out, long long *cyc, int iters, int nwg) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const u32 base = fill_operands(smem);
  const int wg = threadIdx.x / 128;
  if (wg >= nwg) return;
  float a0[32], a1[32], w[64];
  for (int i = 0; i < 32; ++i) a0[i] = a1[i] = 0.f;
  for (int i = 0; i < 64; ++i) w[i] = 0.f;
  const u64 da = desc(base + wg * 64 * 128), db = desc(base + 32768);
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    fence();
    if (MODE == 0) {
#pragma unroll
      for (int k = 0; k < KS; ++k) mma64(a0, da + (u64)(((k / 4) * 16384 + (k % 4) * 32) >> 4), db + (u64)(((k / 4) * 8192 + (k % 4) * 32) >> 4));
    } else if (MODE == 1) {
#pragma unroll
      for (int k = 0; k < KS / 2; ++k) {
        mma64(a0, da + (u64)(((k / 4) * 16384 + (k % 4) * 32) >> 4), db + (u64)(((k / 4) * 8192 + (k % 4) * 32) >> 4));
        const int k2 = k + KS / 2;
        mma64(a1, da + (u64)(((k2 / 4) * 16384 + (k2 % 4) * 32) >> 4), db + (u64)(((k2 / 4) * 8192 + (k2 % 4) * 32) >> 4));
      }
    } else if (MODE == 3) {
      static_assert(MODE != 3 || KS == 8, "MODE 3 is a 128-key visit's chain of 8");
      qk_chain128(w, da, db);
    } else {
#pragma unroll
      for (int k = 0; k < KS; ++k) {
        mma64(a0, da + (u64)(((k / 4) * 16384 + (k % 4) * 32) >> 4), db + (u64)(((k / 4) * 8192 + (k % 4) * 32) >> 4));
        mma64(a1, da + (u64)(((k / 4) * 16384 + (k % 4) * 32) >> 4), db + 1024 + (u64)(((k / 4) * 8192 + (k % 4) * 32) >> 4));
      }
    }
    commit();
    wait0();
  }
  long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < 32; ++i) s += a0[i] + a1[i] + w[i] + w[i + 32];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x % 128 == 0) cyc[blockIdx.x * 2 + wg] = t1 - t0;
}

// Session 59: does a warpgroup get its issue slot back while its own chain runs? Per iteration:
// issue the chain of 8 m64n128k16 (MODE 3's), commit, then WORK rounds of ALU work on 16
// registers of their own (an FMUL and an FMNMX each, register r % 16 from itself and another:
// row-maxima-like work with ample parallelism; plus ~20 instructions for the sum and the
// branch below), then wait. Reports the cycles from the first issue to the commit's return ("issue")
// and the whole iteration: if the issue returns early and the work fits under the chain, the
// iteration stays at the chain's time; if issuing blocks until the chain is through, issue is
// ~the chain and the work adds to it.
template <int WORK>
__global__ void __launch_bounds__(256, 1) issue_bench(float *out, long long *cyc, int iters, int nwg) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const u32 base = fill_operands(smem);
  const int wg = threadIdx.x / 128;
  if (wg >= nwg) return;
  float w[64], x[16];
  for (int i = 0; i < 64; ++i) w[i] = 0.f;
  for (int i = 0; i < 16; ++i) x[i] = (float)(threadIdx.x + i);
  const u64 da = desc(base + wg * 64 * 128), db = desc(base + 32768);
  long long issue = 0;
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    const long long ti = clock64();
    fence();
    qk_chain128(w, da, db);
    commit();
    issue += clock64() - ti;
#pragma unroll
    for (int r = 0; r < WORK; ++r) x[r % 16] = fmaxf(x[r % 16] * 0.999f, x[(r + 5) % 16]);
    // The work done before the wait: a warp-uniform branch on all of it (past an empty asm or a
    // barrier ptxas moved the work beyond the wait; a divergent branch made it serialise the chain).
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 16; ++i) sum += x[i];
    if (__all_sync(0xffffffffu, sum == 1234.5f)) asm volatile("trap;");
    wait0();
  }
  const long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < 64; ++i) s += w[i];
  for (int i = 0; i < 16; ++i) s += x[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x % 128 == 0) {
    cyc[blockIdx.x * 4 + wg * 2] = t1 - t0;
    cyc[blockIdx.x * 4 + wg * 2 + 1] = issue;
  }
}

template <int WORK>
void run_issue(int nwg) {
  float *out;
  long long *cyc;
  cudaMalloc(&out, 256 * 4);
  cudaMalloc(&cyc, 4 * 8);
  const int smem = 65536 + 1024, iters = 2000;
  cudaFuncSetAttribute(issue_bench<WORK>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  issue_bench<WORK><<<1, 256, smem>>>(out, cyc, 10, nwg);
  issue_bench<WORK><<<1, 256, smem>>>(out, cyc, iters, nwg);
  cudaError_t e = cudaDeviceSynchronize();
  long long c[4];
  cudaMemcpy(c, cyc, 32, cudaMemcpyDeviceToHost);
  printf("chain of 8 m64n128 then %3d ALU ops, wg=%d: %7.1f cycles/iter, issue %7.1f %s\n", WORK, nwg,
         (double)c[0] / iters, (double)c[1] / iters, e == cudaSuccess ? "" : cudaGetErrorString(e));
  cudaFree(out);
  cudaFree(cyc);
}

template <int MODE, int KS>
void run(const char *name, int nwg, int ctas, int flops_per_iter_wg) {
  float *out;
  long long *cyc;
  cudaMalloc(&out, 132 * 256 * 4);
  cudaMalloc(&cyc, 132 * 2 * 8);
  const int smem = 65536 + 1024, iters = 2000;
  cudaFuncSetAttribute(bench<MODE, KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  bench<MODE, KS><<<ctas, 256, smem>>>(out, cyc, 10, nwg);
  bench<MODE, KS><<<ctas, 256, smem>>>(out, cyc, iters, nwg);
  cudaError_t e = cudaDeviceSynchronize();
  long long c[2];
  cudaMemcpy(c, cyc, 16, cudaMemcpyDeviceToHost);
  const double per = (double)c[0] / iters;
  const double ideal = (double)flops_per_iter_wg * nwg / 4096.0;  // 4096 dense bf16 FLOP/cycle/SM
  printf("%-44s wg=%d ctas=%3d: %7.1f cycles/iter, ideal %6.1f, tensor busy %5.1f %% %s\n", name, nwg, ctas, per, ideal,
         100.0 * ideal / per, e == cudaSuccess ? "" : cudaGetErrorString(e));
  cudaFree(out);
  cudaFree(cyc);
}

int main() {
  const int f = 2 * 64 * 64 * 16;  // one m64n64k16
  for (int ctas : {1, 132}) {
    run<0, 8>("chain of 8 (Q K^T, d 128)", 1, ctas, 8 * f);
    run<0, 8>("chain of 8, both warpgroups", 2, ctas, 8 * f);
    run<1, 8>("two chains of 4 (K split)", 1, ctas, 8 * f);
    run<1, 8>("two chains of 4, both warpgroups", 2, ctas, 8 * f);
    run<2, 8>("two chains of 8 (two visits)", 1, ctas, 16 * f);
    run<2, 8>("two chains of 8, both warpgroups", 2, ctas, 16 * f);
    run<0, 4>("chain of 4 (d 64)", 1, ctas, 4 * f);
    run<3, 8>("chain of 8 m64n128 (128-key visit's Q K^T)", 1, ctas, 16 * f);
    run<3, 8>("chain of 8 m64n128, both warpgroups", 2, ctas, 16 * f);
    // (Session 6's "chain of 32" is gone: its k-steps past 8 read past the 64 KB of shared
    // memory, and the illegal address it raised failed every call after it.)
  }
  for (int nwg : {1, 2}) {
    run_issue<0>(nwg);
    run_issue<64>(nwg);
    run_issue<256>(nwg);
    run_issue<512>(nwg);
  }
  return 0;
}
