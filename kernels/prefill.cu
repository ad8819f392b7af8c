// Prefill: FlashAttention-2-style forward with Skip-Softmax (SPEC section 1).
//
// One CTA = one work unit: 128 query rows of one (sequence, query head) against all visible KV
// tiles of 128 keys, visited last to first (plan: block_m 128, block_n 128, 1 split,
// reverse_kv 1). 8 warps, each owning 16 query rows; mma.sync m16n8k16 with fp32 accumulation,
// online softmax in the exp2 domain. Pipeline per tile j (cp.async, K single-buffered, V
// double-buffered):  issue V_j | wait K_j | S = Q K_j^T | barrier (= the skip vote) |
// issue K_{j-1} | softmax | wait V_j | O += P V_j.
// With SKIP the vote needs every row of the CTA to agree (__syncthreads_and), so a skipped
// tile costs one Q K^T and nothing else; the dense specialisation contains no vote at all.

#define BM 128
#define BN 128
#define NWARPS 8
#define NTHREADS (NWARPS * 32)
#define CH (HEAD_DIM / 8)          // 16-byte chunks per row
#define TILE_BYTES (BM * HEAD_DIM * 2)

// Loads rows [row0, row0 + 128) of a Q/K/V tile into swizzled shared memory; rows outside
// [0, limit) are zero-filled.
template <int WHICH>  // 0 = q, 1 = k, 2 = v
DEVI void load_tile(const KernelParams &p, const Seq &s, int b, int head, u32 dst, int row0, int limit) {
  const int tid = threadIdx.x;
  const int chunk = tid % CH;
  #pragma unroll
  for (int i = 0; i < BM * CH / NTHREADS; ++i) {
    const int r = tid / CH + i * (NTHREADS / CH);
    const int pos = row0 + r;
    const bool valid = pos < limit;
    const u16 *src;
    if (WHICH == 0) src = p.q + (valid ? q_offset(p, s, b, pos, head, p.q_batch_stride, p.q_row_stride, p.q_head_stride) : 0);
    else if (WHICH == 1) src = p.k + (valid ? kv_offset(p, s, b, pos, head, p.k_batch_stride, p.k_row_stride, p.k_head_stride) : 0);
    else src = p.v + (valid ? kv_offset(p, s, b, pos, head, p.v_batch_stride, p.v_row_stride, p.v_head_stride) : 0);
    cp_async16(dst + swz(r, chunk, CH), src + chunk * 8, valid);
  }
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 1) KERNEL_NAME(const KernelParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
#if SKIP
  __shared__ __align__(8) unsigned char vflags[2 * NWARPS];
#endif
  const u32 sQ = smem_u32(smem);
  const u32 sK = sQ + TILE_BYTES;
  const u32 sV = sK + TILE_BYTES;  // two buffers

  const int mb = gridDim.x - 1 - blockIdx.x;  // longest (causal) blocks first
  const int h = blockIdx.y, b = blockIdx.z;
  const int kh = h / p.group;
  const Seq s = load_seq(p, b);
  const int r0 = mb * BM;
  if (r0 >= s.lq) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row_a = r0 + warp * 16 + lane / 4, row_b = row_a + 8;

  const int last_row = min(s.lq, r0 + BM) - 1;
  const int total_tiles = (s.lk + BN - 1) / BN;
  const int limit = p.causal ? min(last_row + s.lk - s.lq, s.lk - 1) : s.lk - 1;
  const int n_vis = limit < 0 ? 0 : min(total_tiles, limit / BN + 1);

  float O[HEAD_DIM / 8][4];
  #pragma unroll
  for (int i = 0; i < HEAD_DIM / 8; ++i) O[i][0] = O[i][1] = O[i][2] = O[i][3] = 0.f;
  float m0 = NEG_INF, m1 = NEG_INF, l0 = 0.f, l1 = 0.f;
  u32 skipped = 0;

  if (n_vis > 0) {
    load_tile<0>(p, s, b, h, sQ, r0, s.lq);
    load_tile<1>(p, s, b, kh, sK, (n_vis - 1) * BN, s.lk);
    cp_async_commit();
  }
  u32 qf[HEAD_DIM / 16][4];
  for (int j = n_vis - 1; j >= 0; --j) {
    const u32 vbuf = sV + (u32)(j & 1) * TILE_BYTES;
    load_tile<2>(p, s, b, kh, vbuf, j * BN, s.lk);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (j == n_vis - 1) {
      #pragma unroll
      for (int ks = 0; ks < HEAD_DIM / 16; ++ks)
        ldmatrix_x4(qf[ks][0], qf[ks][1], qf[ks][2], qf[ks][3], sQ + swz(warp * 16 + lane % 16, ks * 2 + lane / 16, CH));
    }
    // S = Q K^T (raw scores).
    float S[BN / 8][4];
    #pragma unroll
    for (int i = 0; i < BN / 8; ++i) S[i][0] = S[i][1] = S[i][2] = S[i][3] = 0.f;
    #pragma unroll
    for (int ks = 0; ks < HEAD_DIM / 16; ++ks) {
      #pragma unroll
      for (int np = 0; np < BN / 16; ++np) {
        u32 b0, b1, b2, b3;
        ldmatrix_x4(b0, b1, b2, b3, sK + swz(np * 16 + lane % 8 + (lane / 16) * 8, ks * 2 + (lane / 8) % 2, CH));
        mma16816(S[2 * np], qf[ks], b0, b1);
        mma16816(S[2 * np + 1], qf[ks], b2, b3);
      }
    }
    // Mask keys past the sequence, past the causal limit, and padding rows.
    const int k0 = j * BN;
    const bool need_mask = k0 + BN > s.lk || r0 + BM > s.lq || (p.causal && k0 + BN - 1 > r0 + s.lk - s.lq);
    if (need_mask) {
      const int lim_a = row_a < s.lq ? (p.causal ? row_a + s.lk - s.lq : s.lk - 1) : -1;
      const int lim_b = row_b < s.lq ? (p.causal ? row_b + s.lk - s.lq : s.lk - 1) : -1;
      #pragma unroll
      for (int nt = 0; nt < BN / 8; ++nt) {
        #pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int key = k0 + nt * 8 + 2 * (lane % 4) + e;
          const bool in = key < s.lk;
          if (!(in && key <= lim_a)) S[nt][e] = NEG_INF;
          if (!(in && key <= lim_b)) S[nt][2 + e] = NEG_INF;
        }
      }
    }
    float mx0 = NEG_INF, mx1 = NEG_INF;
    #pragma unroll
    for (int nt = 0; nt < BN / 8; ++nt) {
      mx0 = fmaxf(mx0, fmaxf(S[nt][0], S[nt][1]));
      mx1 = fmaxf(mx1, fmaxf(S[nt][2], S[nt][3]));
    }
    mx0 = warp_quad_max(mx0);
    mx1 = warp_quad_max(mx1);
#if SKIP
    // Each warp agrees on its 16 rows, publishes one flag, and the barrier that frees sK also
    // publishes the flags (double-buffered by tile parity). A plain bar.sync plus 8 bytes of
    // shared memory is cheaper than a reduction barrier.
    const bool wvote = __all_sync(0xffffffffu, row_votes_skip(mx0, m0, p) && row_votes_skip(mx1, m1, p));
    if (lane == 0) vflags[(j & 1) * NWARPS + warp] = wvote ? 1 : 0;
    __syncthreads();  // also: everyone is done reading sK
    const bool skip = *(const volatile u64 *)(vflags + (j & 1) * NWARPS) == 0x0101010101010101ull;
#else
    __syncthreads();  // everyone is done reading sK
    const bool skip = false;
#endif
    if (j > 0) {
      load_tile<1>(p, s, b, kh, sK, (j - 1) * BN, s.lk);
      cp_async_commit();
    }
    if (skip) {
      ++skipped;
      continue;
    }
    // Online softmax (exp2 domain).
    const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
    const float ms0 = mn0 == NEG_INF ? 0.f : mn0 * p.scale_log2;
    const float ms1 = mn1 == NEG_INF ? 0.f : mn1 * p.scale_log2;
    const float al0 = fast_exp2(m0 * p.scale_log2 - ms0), al1 = fast_exp2(m1 * p.scale_log2 - ms1);
    float rs0 = 0.f, rs1 = 0.f;
    #pragma unroll
    for (int nt = 0; nt < BN / 8; ++nt) {
      S[nt][0] = fast_exp2(S[nt][0] * p.scale_log2 - ms0);
      S[nt][1] = fast_exp2(S[nt][1] * p.scale_log2 - ms0);
      S[nt][2] = fast_exp2(S[nt][2] * p.scale_log2 - ms1);
      S[nt][3] = fast_exp2(S[nt][3] * p.scale_log2 - ms1);
      rs0 += S[nt][0] + S[nt][1];
      rs1 += S[nt][2] + S[nt][3];
    }
    l0 = l0 * al0 + rs0;
    l1 = l1 * al1 + rs1;
    m0 = mn0;
    m1 = mn1;
    #pragma unroll
    for (int dt = 0; dt < HEAD_DIM / 8; ++dt) {
      O[dt][0] *= al0; O[dt][1] *= al0;
      O[dt][2] *= al1; O[dt][3] *= al1;
    }
    if (j > 0) cp_async_wait<1>(); else cp_async_wait<0>();
    __syncthreads();
    // O += P V.
    #pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      u32 a[4];
      a[0] = pack2(S[2 * kk][0], S[2 * kk][1]);
      a[1] = pack2(S[2 * kk][2], S[2 * kk][3]);
      a[2] = pack2(S[2 * kk + 1][0], S[2 * kk + 1][1]);
      a[3] = pack2(S[2 * kk + 1][2], S[2 * kk + 1][3]);
      #pragma unroll
      for (int dp = 0; dp < HEAD_DIM / 16; ++dp) {
        u32 b0, b1, b2, b3;
        ldmatrix_x4_trans(b0, b1, b2, b3, vbuf + swz(kk * 16 + lane % 8 + ((lane / 8) % 2) * 8, dp * 2 + lane / 16, CH));
        mma16816(O[2 * dp], a, b0, b1);
        mma16816(O[2 * dp + 1], a, b2, b3);
      }
    }
  }
  cp_async_wait<0>();

  // Epilogue: normalise, write O and the natural-log LSE; fully masked rows get 0 and -inf.
  l0 = warp_quad_sum(l0);
  l1 = warp_quad_sum(l1);
  const float inv0 = l0 > 0.f ? 1.f / l0 : 0.f, inv1 = l1 > 0.f ? 1.f / l1 : 0.f;
  if (row_a < s.lq) {
    u16 *dst = p.o + q_offset(p, s, b, row_a, h, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
    #pragma unroll
    for (int dt = 0; dt < HEAD_DIM / 8; ++dt)
      *(u32 *)(dst + dt * 8 + 2 * (lane % 4)) = pack2(O[dt][0] * inv0, O[dt][1] * inv0);
    if (p.lse && lane % 4 == 0) p.lse[(i64)(s.q_start + row_a) * p.hq + h] = l0 > 0.f ? m0 * p.scale + logf(l0) : NEG_INF;
  }
  if (row_b < s.lq) {
    u16 *dst = p.o + q_offset(p, s, b, row_b, h, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
    #pragma unroll
    for (int dt = 0; dt < HEAD_DIM / 8; ++dt)
      *(u32 *)(dst + dt * 8 + 2 * (lane % 4)) = pack2(O[dt][2] * inv1, O[dt][3] * inv1);
    if (p.lse && lane % 4 == 0) p.lse[(i64)(s.q_start + row_b) * p.hq + h] = l1 > 0.f ? m1 * p.scale + logf(l1) : NEG_INF;
  }
  if (p.stats && threadIdx.x == 0) {
    atomicAdd(p.stats, (u64)n_vis);
    atomicAdd(p.stats + 1, (u64)skipped);
  }
}
