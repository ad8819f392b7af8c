// Prefill: FlashAttention-2-style forward with Skip-Softmax (SPEC section 1).
//
// One CTA: 128 query rows of one (sequence, query head) against all visible KV tiles of 64
// keys, visited last to first (plan: block_m 16, block_n 64, 1 split, reverse_kv 1: each m16
// atom's 16 rows are one row tile of the plan). At d <= 128, 4 warps each owning two m16
// atoms (32 rows), so every K/V fragment read from shared memory feeds two mma.sync (m16n8k16,
// fp32 accumulation); at d = 256, 8 warps of one atom each (two atoms' O would be 256 fp32
// registers per thread: spilled 2.6 KB), one CTA per SM (160 KB of shared memory). Online
// softmax in the exp2 domain. Pipeline per tile j (cp.async, K single-buffered, V
// double-buffered):
//   issue V_j | wait K_j | S = Q K_j^T | skip votes | barrier | issue K_{j-1} | softmax |
//   wait V_j | O += P V_j.
// With SKIP every warp votes for each of its atoms (__all_sync); a skipped atom leaves out
// its softmax and its P V. The dense specialisation contains no vote at all.

// The compact layout (PREFILL_COMPACT, host: nvrtc::prefill_compact, for GPUs of 100 KB of
// shared memory per SM): 4 warps of one atom (64 rows) and one V buffer; at d = 128 48 KB, so
// that two CTAs fit where one of the usual 80 KB does; at d = 256 96 KB, so that one fits where
// none of the usual 160 KB does.
// Its V_j is then issued after the barrier that proves every warp is done with V_{j+1}
// (FlashAttention-2's single-buffered layout).
#if PREFILL_COMPACT
#define NWARPS 4
#define MI 1
#define VBUF 1
#else
#define NWARPS (HEAD_DIM <= 128 ? 4 : 8)  // host: prefill_threads
#define MI (HEAD_DIM <= 128 ? 2 : 1)      // m16 atoms per warp
#define VBUF 2                            // V buffers
#endif
#define BM (NWARPS * 16 * MI)             // 128 (compact: 64)
#define BN 64
#define NTHREADS (NWARPS * 32)
#define CH (HEAD_DIM / 8)          // 16-byte chunks per row
#define Q_BYTES (BM * HEAD_DIM * 2)
#define KV_BYTES (BN * HEAD_DIM * 2)

// Loads `rows` rows starting at row0 of a Q/K/V tile into swizzled shared memory; rows outside
// [0, limit) are zero-filled.
template <int WHICH, int ROWS>  // WHICH: 0 = q, 1 = k, 2 = v
DEVI void load_tile(const KernelParams &p, const Seq &s, int b, int head, u32 dst, int row0, int limit) {
  const int tid = threadIdx.x;
  const int chunk = tid % CH;
  #pragma unroll
  for (int i = 0; i < ROWS * CH / NTHREADS; ++i) {
    const int r = tid / CH + i * (NTHREADS / CH);
    const int pos = row0 + r;
    const bool valid = pos < limit;
    const u16 *src;
    if (WHICH == 0) src = p.q + (valid ? q_offset(p, s, b, pos, head, p.q_batch_stride, p.q_row_stride, p.q_head_stride) : 0);
    else if (WHICH == 1) src = p.k + (valid ? kv_offset(p, s, b, pos, head, p.k_batch_stride, p.k_row_stride, p.k_head_stride) : 0);
    else src = p.v + (valid ? kv_offset(p, s, b, pos, head, p.v_batch_stride, p.v_row_stride, p.v_head_stride) : 0);
    // (Chunks past DIM: zero-filled, the row's address kept in bounds.)
    cp_async16(dst + swz(r, chunk, CH), src + (dim_chunk(chunk) ? chunk * 8 : 0), valid && dim_chunk(chunk));
  }
}

extern "C" __global__ void __launch_bounds__(NTHREADS, HEAD_DIM <= 128 ? 2 : 1) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ u32 counts[2];  // the CTA's visited and skipped tiles
  pdl_wait();
  if (threadIdx.x < 2) counts[threadIdx.x] = 0;
#if SWEEP
  __shared__ u32 scount[NWARPS][32];  // [warp][candidate]: only the warp's lane 0 touches its row
  scount[threadIdx.x / 32][threadIdx.x % 32] = 0;
  __syncwarp();
#endif
  const u32 sQ = smem_u32(smem);
  const u32 sK = sQ + Q_BYTES;
  const u32 sV = sK + KV_BYTES;  // VBUF buffers

  const int mb = gridDim.x - 1 - blockIdx.x;  // longest (causal) blocks first
  const int h = blockIdx.y, b = blockIdx.z + p.batch0;
  const int kh = h / p.group;
  const Seq s = load_seq(p, b);
  const int r0 = mb * BM;
  if (r0 >= s.lq) return;
  __syncthreads();  // `counts` is initialised
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // This thread's rows: row[mi][hh] = r0 + 16 MI warp + 16 mi + lane / 4 + 8 hh.
  const int rbase = r0 + warp * 16 * MI + lane / 4;

  // The CTA computes the KV tiles visible to any of its BM rows (n_vis); each atom's 16 rows
  // are one row tile of the plan, which visits those of its own rows (nva <= n_vis; the others
  // are fully masked for it).
  const int n_vis = visible_tiles(p, s, r0, BM, BN);
  int nva[MI];
  #pragma unroll
  for (int mi = 0; mi < MI; ++mi) nva[mi] = visible_tiles(p, s, r0 + (warp * MI + mi) * 16, 16, BN);

  float O[MI][HEAD_DIM / 8][4];
  #pragma unroll
  for (int mi = 0; mi < MI; ++mi)
    #pragma unroll
    for (int i = 0; i < HEAD_DIM / 8; ++i) O[mi][i][0] = O[mi][i][1] = O[mi][i][2] = O[mi][i][3] = 0.f;
  float m[MI][2], l[MI][2];
  #pragma unroll
  for (int mi = 0; mi < MI; ++mi) m[mi][0] = m[mi][1] = NEG_INF, l[mi][0] = l[mi][1] = 0.f;
  u32 skipped = 0;

  if (n_vis > 0) {
    load_tile<0, BM>(p, s, b, h, sQ, r0, s.lq);
    load_tile<1, BN>(p, s, b, kh, sK, (n_vis - 1) * BN, s.lk);
    cp_async_commit();
  }
  for (int j = n_vis - 1; j >= 0; --j) {
    const u32 vbuf = sV + (u32)(j & (VBUF - 1)) * KV_BYTES;
#if VBUF == 2
    load_tile<2, BN>(p, s, b, kh, vbuf, j * BN, s.lk);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
#else
    cp_async_wait<0>();
    __syncthreads();  // K_j has landed, and every warp is done with V_{j+1}
    load_tile<2, BN>(p, s, b, kh, vbuf, j * BN, s.lk);
    cp_async_commit();
#endif
    // S = Q K^T (raw scores).
    float S[MI][BN / 8][4];
    #pragma unroll
    for (int mi = 0; mi < MI; ++mi)
      #pragma unroll
      for (int i = 0; i < BN / 8; ++i) S[mi][i][0] = S[mi][i][1] = S[mi][i][2] = S[mi][i][3] = 0.f;
    #pragma unroll
    for (int ks = 0; ks < DIM16; ++ks) {  // (padded head dims: the steps that hold data)
      u32 a[MI][4];
      #pragma unroll
      for (int mi = 0; mi < MI; ++mi)
        ldmatrix_x4(a[mi][0], a[mi][1], a[mi][2], a[mi][3], sQ + swz((warp * MI + mi) * 16 + lane % 16, ks * 2 + lane / 16, CH));
      #pragma unroll
      for (int np = 0; np < BN / 16; ++np) {
        u32 b0, b1, b2, b3;
        ldmatrix_x4(b0, b1, b2, b3, sK + swz(np * 16 + lane % 8 + (lane / 16) * 8, ks * 2 + (lane / 8) % 2, CH));
        #pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
          mma16816(S[mi][2 * np], a[mi], b0, b1);
          mma16816(S[mi][2 * np + 1], a[mi], b2, b3);
        }
      }
    }
    // Mask keys past the sequence, past the causal limit, and padding rows.
    const int k0 = j * BN;
    const bool need_mask = k0 + BN > s.lk || r0 + BM > s.lq || (p.causal && k0 + BN - 1 > r0 + s.lk - s.lq);
    if (need_mask) {
      #pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int row = rbase + mi * 16 + hh * 8;
          const int lim = row < s.lq ? (p.causal ? row + s.lk - s.lq : s.lk - 1) : -1;
          #pragma unroll
          for (int nt = 0; nt < BN / 8; ++nt) {
            #pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int key = k0 + nt * 8 + 2 * (lane % 4) + e;
              if (!(key < s.lk && key <= lim)) S[mi][nt][hh * 2 + e] = NEG_INF;
            }
          }
        }
      }
    }
    float mx[MI][2];
    #pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      #pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        float x = NEG_INF;
        #pragma unroll
        for (int nt = 0; nt < BN / 8; ++nt) x = fmaxf(x, fmaxf(S[mi][nt][hh * 2], S[mi][nt][hh * 2 + 1]));
        mx[mi][hh] = warp_quad_max(x);
      }
    }
    // skip[mi]: atom mi's 16 rows all vote to skip (warp-uniform). Tiles past an atom's own
    // (j >= nva) are fully masked for it: skipped, not counted.
    bool skip[MI];
    #pragma unroll
    for (int mi = 0; mi < MI; ++mi) skip[mi] = false;
#if SKIP
    #pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      skip[mi] = __all_sync(0xffffffffu, rows_vote_skip(mx[mi][0], m[mi][0], mx[mi][1], m[mi][1], p));
      if (lane == 0 && skip[mi] && j < nva[mi]) ++skipped;
    }
#elif SWEEP
    #pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      const u32 mask = warp_sweep_mask(p, mx[mi][0], m[mi][0], mx[mi][1], m[mi][1]);
      if (lane == 0 && j < nva[mi]) sweep_count(scount[warp], mask);
    }
#endif
    __syncthreads();  // everyone is done reading sK
    if (j > 0) {
      load_tile<1, BN>(p, s, b, kh, sK, (j - 1) * BN, s.lk);
      cp_async_commit();
    }
    // Online softmax (exp2 domain); a skipped atom leaves m, l and O as they are.
    #pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      if (skip[mi]) continue;
      #pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const float mn = fmaxf(m[mi][hh], mx[mi][hh]);
        const float ms = mn == NEG_INF ? 0.f : mn * p.scale_log2;
        const float al = fast_exp2(m[mi][hh] * p.scale_log2 - ms);
        float rs = 0.f;
        #pragma unroll
        for (int nt = 0; nt < BN / 8; ++nt) {
          S[mi][nt][hh * 2] = fast_exp2(S[mi][nt][hh * 2] * p.scale_log2 - ms);
          S[mi][nt][hh * 2 + 1] = fast_exp2(S[mi][nt][hh * 2 + 1] * p.scale_log2 - ms);
          rs += S[mi][nt][hh * 2] + S[mi][nt][hh * 2 + 1];
        }
        l[mi][hh] = l[mi][hh] * al + rs;
        m[mi][hh] = mn;
        #pragma unroll
        for (int dt = 0; dt < 2 * DIM16; ++dt) O[mi][dt][hh * 2] *= al, O[mi][dt][hh * 2 + 1] *= al;
      }
    }
    if (j > 0) cp_async_wait<1>(); else cp_async_wait<0>();
    __syncthreads();
#if SKIP
    bool all_skipped = skip[0];
    #pragma unroll
    for (int mi = 1; mi < MI; ++mi) all_skipped = all_skipped && skip[mi];
    if (all_skipped) continue;
#endif
    // O += P V (of the kept atoms).
    #pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      u32 a[MI][4];
      #pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        a[mi][0] = pack2(S[mi][2 * kk][0], S[mi][2 * kk][1]);
        a[mi][1] = pack2(S[mi][2 * kk][2], S[mi][2 * kk][3]);
        a[mi][2] = pack2(S[mi][2 * kk + 1][0], S[mi][2 * kk + 1][1]);
        a[mi][3] = pack2(S[mi][2 * kk + 1][2], S[mi][2 * kk + 1][3]);
      }
      #pragma unroll
      for (int dp = 0; dp < DIM16; ++dp) {  // (padded head dims: O's columns that hold data, 16 at a time)
        u32 b0, b1, b2, b3;
        ldmatrix_x4_trans(b0, b1, b2, b3, vbuf + swz(kk * 16 + lane % 8 + ((lane / 8) % 2) * 8, dp * 2 + lane / 16, CH));
        #pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
          if (skip[mi]) continue;
          mma16816(O[mi][2 * dp], a[mi], b0, b1);
          mma16816(O[mi][2 * dp + 1], a[mi], b2, b3);
        }
      }
    }
  }
  cp_async_wait<0>();

  // Epilogue: normalise, write O and the natural-log LSE.
  #pragma unroll
  for (int mi = 0; mi < MI; ++mi)
    #pragma unroll
    for (int hh = 0; hh < 2; ++hh)
      store_prefill_row(p, s, b, h, rbase + mi * 16 + hh * 8, &O[mi][0][hh * 2], l[mi][hh], m[mi][hh]);
  u32 nvisit = 0;
  #pragma unroll
  for (int mi = 0; mi < MI; ++mi) nvisit += (u32)nva[mi];
  flush_cta_counts(p, counts, nvisit, skipped, SWEEP_ROWS(scount), NWARPS, [] { __syncthreads(); });
}
