// Merges the per-split partial results of the decode kernel by LSE:
// o = sum_s exp(lse_s - lse) o_s, lse = log sum_s exp(lse_s). One CTA per (token, head, seq),
// HEAD_DIM / 2 threads, two columns each.

extern "C" __global__ void KERNEL_NAME(const KernelParams p) {
  const int t = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const Seq s = load_seq(p, b);
  if (t >= s.lq) return;
  const i64 rows_total = (i64)p.batch * p.max_lq;
  const i64 row = (i64)b * p.max_lq + t;
  float mx = NEG_INF;
  for (int sp = 0; sp < p.num_splits; ++sp) mx = fmaxf(mx, p.ws_lse[(sp * rows_total + row) * p.hq + h]);
  const int c = threadIdx.x * 2;
  float a0 = 0.f, a1 = 0.f, sum = 0.f;
  if (mx != NEG_INF) {
    for (int sp = 0; sp < p.num_splits; ++sp) {
      const i64 wrow = (sp * rows_total + row) * p.hq + h;
      const float w = fast_exp2((p.ws_lse[wrow] - mx) * 1.4426950408889634f);
      if (w == 0.f) continue;
      sum += w;
      a0 += w * p.ws_o[wrow * HEAD_DIM + c];
      a1 += w * p.ws_o[wrow * HEAD_DIM + c + 1];
    }
  }
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  u16 *dst = p.o + q_offset(p, s, b, t, h, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
  *(u32 *)(dst + c) = pack2(a0 * inv, a1 * inv);
  if (p.lse && threadIdx.x == 0) p.lse[(i64)(s.q_start + t) * p.hq + h] = sum > 0.f ? mx + logf(sum) : NEG_INF;
}
