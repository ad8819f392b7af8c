// Merges the per-split partial results of the decode kernel by LSE:
// o = sum_s exp(lse_s - lse) o_s, lse = log sum_s exp(lse_s). One CTA per (token, head, seq),
// HEAD_DIM threads = MW warps of 32 lanes: the split weights are computed once into shared
// memory; then lane l of warp w sums columns l * CPL ... l * CPL + CPL - 1 (vector loads) over
// splits w, w + MW, ..., and the warps' sums meet in shared memory. The workspace rows are
// HEAD_DIM wide (the decode kernel's); only the call's DIM columns are stored.
//
// Since session 51 (written in session 49) the splits are shared out among the warps (before,
// every thread walked all the splits for its one column, 8 loads in flight): calls of many
// splits (speculative decode of one sequence: 33-66 splits) spent several microseconds in that
// walk, each thread's loads waiting on L2 one batch of 8 after another. Run 263 (H100): +4.6 %
// at 4 tokens x GQA 8, 1 x 128K (66 splits), others within 0.6 % (bench/RESULTS.md session 51).

#define MAX_MERGE_SPLITS 1024
#define MW (HEAD_DIM / 32)   // warps
#define CPL (HEAD_DIM / 32)  // columns per lane: 2, 4 or 8
static_assert(CPL % 2 == 0, "two columns per store");
// Splits a lane's loads run ahead by (8 x CPL floats in flight; 4 at d = 256, 69 registers).
// Launch bounds of one CTA per SM: with none, ptxas held the d = 128 kernel to 32 registers
// and spilled at an unroll of 4 or 8.
#if HEAD_DIM == 256
#define MERGE_UNROLL 4
#else
#define MERGE_UNROLL 8
#endif

// CPL consecutive floats from a 8- (CPL 2) or 16-byte (CPL >= 4) aligned address (validate.rs:
// the workspace is 16-byte aligned; rows are HEAD_DIM floats).
DEVI void load_cols(const float *src, float (&x)[CPL]) {
#if CPL == 2
  const float2 v = *(const float2 *)src;
  x[0] = v.x, x[1] = v.y;
#else
  #pragma unroll
  for (int i = 0; i < CPL; i += 4) {
    const float4 v = *(const float4 *)(src + i);
    x[i] = v.x, x[i + 1] = v.y, x[i + 2] = v.z, x[i + 3] = v.w;
  }
#endif
}

extern "C" __global__ void __launch_bounds__(HEAD_DIM, 1) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  __shared__ float w[MAX_MERGE_SPLITS];
  __shared__ float red[MW];
  __shared__ __align__(16) float part[MW][HEAD_DIM];
  pdl_wait();
  const int t = blockIdx.x, h = blockIdx.y, b = blockIdx.z + p.batch0;
  const Seq s = load_seq(p, b);
  if (t >= s.lq) return;
  const i64 rows_total = (i64)p.batch * p.max_lq;
  const i64 row = (i64)b * p.max_lq + t;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  float mx = NEG_INF;
  for (int sp = tid; sp < p.num_splits; sp += HEAD_DIM) mx = fmaxf(mx, p.ws_lse[(sp * rows_total + row) * p.hq + h]);
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  if (lane == 0) red[warp] = mx;
  __syncthreads();
  mx = red[0];
  #pragma unroll
  for (int i = 1; i < MW; ++i) mx = fmaxf(mx, red[i]);
  __syncthreads();
  float sum = 0.f;
  for (int sp = tid; sp < p.num_splits; sp += HEAD_DIM) {
    const float lse = p.ws_lse[(sp * rows_total + row) * p.hq + h];
    const float e = mx == NEG_INF ? 0.f : fast_exp2((lse - mx) * 1.4426950408889634f);
    w[sp] = e;
    sum += e;
  }
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) red[warp] = sum;
  __syncthreads();  // (also publishes w)
  sum = 0.f;
  #pragma unroll
  for (int i = 0; i < MW; ++i) sum += red[i];
  float acc[CPL];
  #pragma unroll
  for (int i = 0; i < CPL; ++i) acc[i] = 0.f;
  const int c0 = lane * CPL;
  #pragma unroll MERGE_UNROLL
  for (int sp = warp; sp < p.num_splits; sp += MW) {
    float x[CPL];
    load_cols(p.ws_o + ((sp * rows_total + row) * p.hq + h) * HEAD_DIM + c0, x);
    const float ws = w[sp];
    #pragma unroll
    for (int i = 0; i < CPL; ++i) acc[i] += ws * x[i];
  }
  #pragma unroll
  for (int i = 0; i < CPL; ++i) part[warp][c0 + i] = acc[i];
  __syncthreads();
  // Thread tid stores columns 2 (tid % (HEAD_DIM / 2)) and the next, threads of the first half.
  if (tid < HEAD_DIM / 2) {
    const int c = 2 * tid;
    float v0 = 0.f, v1 = 0.f;
    #pragma unroll
    for (int i = 0; i < MW; ++i) v0 += part[i][c], v1 += part[i][c + 1];
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    u16 *dst = p.o + q_offset(p, s, b, t, h, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
    if (dim_col(c)) *(u32 *)(dst + c) = pack2(v0 * inv, v1 * inv);
  }
  if (p.lse && tid == 0) p.lse[(i64)(s.q_start + t) * p.hq + h] = lse_of(mx, sum);
}
