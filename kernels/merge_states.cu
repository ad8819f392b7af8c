// blasst_merge_states on the GPU: combines `num_states` partial attention results of the same
// rows by their LSE. Stacked layout: v [states][rows][heads][DIM] (element type),
// s [states][rows][heads] fp32 natural log; out [rows][heads][DIM], s_out or NULL.
// One CTA per (row, head), HEAD_DIM threads (DIM rounded up to 64, 128 or 256), one column each.

struct MergeParams {
  const u16 *v;
  const float *s;
  u16 *out;
  float *s_out;
  int num_states, num_rows, num_heads, pad_;
};

DEVI float elem_to_f32(u16 x) {
#if defined(BLASST_BF16)
  return __uint_as_float((u32)x << 16);
#else
  float f;
  asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(x));
  return f;
#endif
}

extern "C" __global__ void __launch_bounds__(HEAD_DIM) KERNEL_NAME(const MergeParams p) {
  const int row = blockIdx.x, h = blockIdx.y;
  const int tid = threadIdx.x;
  const i64 per_state = (i64)p.num_rows * p.num_heads;
  const i64 rh = (i64)row * p.num_heads + h;
  float mx = NEG_INF;
  for (int st = 0; st < p.num_states; ++st) mx = fmaxf(mx, p.s[st * per_state + rh]);
  float acc = 0.f, sum = 0.f;
  if (mx != NEG_INF) {
    for (int st = 0; st < p.num_states; ++st) {
      const float w = fast_exp2((p.s[st * per_state + rh] - mx) * 1.4426950408889634f);
      sum += w;
      if (dim_col(tid)) acc += w * elem_to_f32(p.v[(st * per_state + rh) * DIM + tid]);
    }
  }
  const float v = sum > 0.f ? acc / sum : 0.f;
  const float other = __shfl_down_sync(0xffffffffu, v, 1);
  if (tid % 2 == 0 && dim_col(tid)) *(u32 *)(p.out + rh * DIM + tid) = pack2(v, other);
  if (p.s_out && tid == 0) p.s_out[rh] = lse_of(mx, sum);
}
