// Merges the per-split partial results of the decode kernel by LSE:
// o = sum_s exp(lse_s - lse) o_s, lse = log sum_s exp(lse_s). One CTA per (token, head, seq),
// HEAD_DIM threads: the split weights are computed once into shared memory, then every
// thread sums its column over the splits (independent loads, so they overlap). The workspace
// rows are HEAD_DIM wide (the decode kernel's); only the call's DIM columns are stored.

#define MAX_MERGE_SPLITS 1024

extern "C" __global__ void __launch_bounds__(HEAD_DIM) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  __shared__ float w[MAX_MERGE_SPLITS];
  __shared__ float red[HEAD_DIM / 32];
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
  for (int i = 1; i < HEAD_DIM / 32; ++i) mx = fmaxf(mx, red[i]);
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
  __syncthreads();
  sum = 0.f;
  #pragma unroll
  for (int i = 0; i < HEAD_DIM / 32; ++i) sum += red[i];
  float acc = 0.f;
  #pragma unroll 8
  for (int sp = 0; sp < p.num_splits; ++sp) acc += w[sp] * p.ws_o[((sp * rows_total + row) * p.hq + h) * HEAD_DIM + tid];
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  const float v = acc * inv;
  const float other = __shfl_down_sync(0xffffffffu, v, 1);
  u16 *dst = p.o + q_offset(p, s, b, t, h, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
  if (tid % 2 == 0 && dim_col(tid)) *(u32 *)(dst + tid) = pack2(v, other);
  if (p.lse && tid == 0) p.lse[(i64)(s.q_start + t) * p.hq + h] = lse_of(mx, sum);
}
