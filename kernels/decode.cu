// Decode: split-KV Skip-Softmax for 1..8 query tokens per sequence (SPEC sections 1 and 2).
//
// One CTA = one work unit: (sequence, KV head, row tile, KV split). Its rows are the query tokens
// times the query heads sharing the KV head (token-major), all of them unless the GPU's shared
// memory needs row tiles (see the grid below), padded to MT*16 <= 64 rows; tiles are 64
// keys (32 where 64 do not fit: DBN below), visited last to first; each of the 8 warps owns 8
// keys of a tile for Q K^T (of a 32-key tile, the first 4 warps) and 1/8 of the head dim for
// P V (small per-warp work, 16 warps per SM to hide latency: decode is issue- and latency-bound
// long before it is bandwidth-bound at this occupancy).
//
// One software pipeline in which a skipped tile's V is never loaded: K is fetched STAGES-1
// iterations ahead; tile `it` is scored and voted on; if accepted, P = exp2(S - m) goes to a
// small shared ring and the load of V_it is issued at the top of the next iteration (right after
// the barrier that proves every warp is done with the stage it reuses), together with
// K_{it+STAGES}; P V for tile `it` runs STAGES iterations later, when V_it has arrived. One
// cp.async group per iteration, so `wait_group<STAGES-2>` at the top of iteration `it` covers
// both K_it and V_{it-STAGES}. Two barriers per tile: that one and the row-max exchange.

// Keys per tile: 64, or 32 (DECODE_BN from the host: src/cuda/nvrtc.rs decode_block_n) where a
// CTA of 64-key tiles does not fit the GPU (d = 256 on GPUs of 100 KB: two stages of K and V
// alone are 128 KB there; with 32-key tiles 64 KB). The plan's block_n is the same, so the
// decisions are per 32-key tile there (the CPU backend follows the plan).
#define DBN DECODE_BN
#define DWARPS 8
// Warps that own keys of a tile for S = Q K^T (8 keys each) and write its P: all 8 at 64 keys,
// the first 4 at 32 (the others wait at the row-max barrier; decode is bound by its copies).
#define QKW (DBN / 8)
#define DBN_LOG2 (DBN == 64 ? 6 : 5)
#define DTHREADS (DWARPS * 32)
#define CH (HEAD_DIM / 8)
#define KV_TILE_BYTES (DBN * HEAD_DIM * 2)
// STAGES (K/V pipeline depth) comes from the host: src/cuda/nvrtc.rs decode_stages().
#define PSLOTS (STAGES + 1)
#define MAXROWS 64
#define DW (HEAD_DIM / DWARPS)    // head-dim columns per warp in P V
#define PCH (DBN / 8)             // 16-byte chunks per P row (64 keys: 8, 32 keys: 4)
#if DBN != 64 && (DBN != 32 || HEAD_DIM < 128)
#error "32-key tiles are built for d >= 128 only (their P V takes the DW >= 16 path)"
#endif
// Byte offset of 16-byte chunk c of row r of a P slot: 8 chunks per row, the usual swizzle; 4
// chunks (32-key tiles), chunk c ^ ((r / 2) % 4), so that the 8 rows an ldmatrix (or a warp's
// stores, 8 rows of one chunk) touches hit 8 different 16-byte bank groups.
DEVI u32 pswz(int r, int c) {
#if PCH == 8
  return swz(r, c, PCH);
#else
  return (u32)(r * PCH + (c ^ ((r >> 1) & 3))) * 16u;
#endif
}

// Per-thread load plan for 64-row K/V tiles: the thread copies chunk `chunk` of rows
// r0 + i * RSTEP (i < NLOAD). Shared-memory offsets are the same for every tile (RSTEP is a
// multiple of 8, so the swizzle pattern repeats).
#define RSTEP (DTHREADS / CH)
#define NLOAD (DBN / RSTEP)

struct KvLoader {
  const u16 *base;  // row 0 of this (sequence, KV head), this thread's first row and chunk
  i64 rs;           // row stride
  u32 dst0;         // shared offset of this thread's first chunk within a tile
  int r0;           // this thread's first row within a tile
#if DIM < HEAD_DIM
  bool used;        // its chunk holds data (dim_chunk)
#define KV_VALID(L, x) ((x) && (L).used)
#else
#define KV_VALID(L, x) (x)  // (no field, no test: the kernel at its own head dim compiles as without them)
#endif
};

DEVI KvLoader make_loader(const KernelParams &p, const Seq &s, int b, int kh, const u16 *tensor, i64 bs, i64 rs, i64 hs) {
  KvLoader L;
  const int chunk = threadIdx.x % CH;
  L.r0 = threadIdx.x / CH;
  L.rs = rs;
  L.dst0 = swz(L.r0, chunk, CH);
#if DIM < HEAD_DIM
  // A chunk past DIM is zero-filled; its address is the row's first chunk (in bounds).
  L.used = dim_chunk(chunk);
#define COL (L.used ? chunk * 8 : 0)
#else
#define COL chunk * 8  // (spelled as before padded head dims: a variable for it changed the SASS)
#endif
#if PAGED
  L.base = tensor + (i64)kh * hs + COL;
  (void)bs; (void)s; (void)b;
#else
  L.base = tensor + (p.cu_kv ? (i64)s.kv_start * rs : (i64)b * bs) + (i64)kh * hs + (i64)L.r0 * rs + COL;
#endif
#undef COL
  return L;
}

DEVI void load_kv_tile(const KernelParams &p, const Seq &s, int b, const KvLoader &L, i64 bs, u32 dst, int row0) {
  const bool full = row0 + DBN <= s.lk;
#if PAGED
  if (p.page_size_log2 >= DBN_LOG2) {
    // Pages of >= DBN keys: the tile (DBN-aligned) lies in one page, one table read.
    const int page = p.block_table[(i64)b * p.block_table_stride + (row0 >> p.page_size_log2)];
    const u16 *src = L.base + (i64)page * bs + (i64)(row0 & ((1 << p.page_size_log2) - 1)) * L.rs + (i64)L.r0 * L.rs;
    #pragma unroll
    for (int i = 0; i < NLOAD; ++i) {
      const bool valid = KV_VALID(L, full || row0 + L.r0 + i * RSTEP < s.lk);
      cp_async16(dst + L.dst0 + i * RSTEP * CH * 16, valid ? src + (i64)i * RSTEP * L.rs : L.base, valid);
    }
    return;
  }
  #pragma unroll
  for (int i = 0; i < NLOAD; ++i) {
    const int pos = row0 + L.r0 + i * RSTEP;
    const bool valid = KV_VALID(L, full || pos < s.lk);
    const int page = valid ? p.block_table[(i64)b * p.block_table_stride + (pos >> p.page_size_log2)] : 0;
    const u16 *src = L.base + (i64)page * bs + (i64)(pos & ((1 << p.page_size_log2) - 1)) * L.rs;
    cp_async16(dst + L.dst0 + i * RSTEP * CH * 16, valid ? src : L.base, valid);
  }
#else
  (void)bs; (void)b;
  const u16 *src = L.base + (i64)row0 * L.rs;
  #pragma unroll
  for (int i = 0; i < NLOAD; ++i) {
    const bool valid = KV_VALID(L, full || row0 + L.r0 + i * RSTEP < s.lk);
    cp_async16(dst + L.dst0 + i * RSTEP * CH * 16, valid ? src + (i64)i * RSTEP * L.rs : L.base, valid);
  }
#endif
}

// DECODE_CTAS_PER_SM (2 at d <= 128, 1 at d = 256) from the host (src/cuda/nvrtc.rs
// decode_ctas_bound), which the decode plan sizes its splits by.
extern "C" __global__ void __launch_bounds__(DTHREADS, DECODE_CTAS_PER_SM) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  pdl_wait();
  pdl_trigger();  // the merge kernel that follows waits for this grid to complete
  const int MT = (p.block_m + 15) / 16;
  const int rows_pad = MT * 16;
  // Layout (host: decode_smem): K stages | V stages | Q | P ring | red | m ring.
  const u32 sK = smem_u32(smem);
  const u32 sV = sK + STAGES * KV_TILE_BYTES;
  const u32 sQ = sV + STAGES * KV_TILE_BYTES;
  const u32 sP = sQ + rows_pad * HEAD_DIM * 2;
  const u32 p_slot_bytes = rows_pad * DBN * 2;
  float *red = (float *)(smem + (sP - sK) + PSLOTS * p_slot_bytes);  // [DWARPS][MAXROWS]
  float *m_ring = red + DWARPS * MAXROWS;                            // [PSLOTS][MAXROWS]

  // Grid (splits, KV heads x row tiles, batch). The plan gives all packed rows (query tokens x
  // the query heads of a KV head) one tile unless its shared memory would not fit the GPU
  // (src/cuda/mod.rs portable_decode_block_m: e.g. 64 rows at d = 128 on a GPU of 100 KB); then
  // row tiles of block_m rows, one CTA each, neighbours in the grid so that all but the first
  // read the KV head's K and V from L2. This CTA's rows are r0 ... r0 + R - 1.
  const int G = p.group;
  const int row_tiles = (p.max_lq * G + p.block_m - 1) / p.block_m;
  const int split = blockIdx.x, kh = blockIdx.y / row_tiles, b = blockIdx.z + p.batch0;
  const int r0 = (blockIdx.y % row_tiles) * p.block_m;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const bool qk_warp = QKW == DWARPS || warp < QKW;  // owns keys of a tile (always, at 64 keys)
  const Seq s = load_seq(p, b);
  const int R = min(s.lq * G - r0, p.block_m);
  if (R <= 0) return;  // a shorter sequence of a ragged batch

  const TileRange tr = decode_split_tiles(p, s, split, DBN);
  const int hi = tr.hi, n = tr.hi - tr.lo;

  const KvLoader LK = make_loader(p, s, b, kh, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride);
  const KvLoader LV = make_loader(p, s, b, kh, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride);
  // Q rows: r -> packed row r0 + r = (token (r0 + r) / G, head kh * G + (r0 + r) % G); rows >= R
  // are zero.
  {
    const int chunk = threadIdx.x % CH;
    for (int r = threadIdx.x / CH; r < rows_pad; r += DTHREADS / CH) {
      const bool valid = r < R;
      const int pr = r0 + r;
      const u16 *src = p.q + (valid ? q_offset(p, s, b, pr / G, kh * G + pr % G, p.q_batch_stride, p.q_row_stride, p.q_head_stride) : 0);
      cp_async16(sQ + swz(r, chunk, CH), src + (dim_chunk(chunk) ? chunk * 8 : 0), valid && dim_chunk(chunk));
    }
  }
  #pragma unroll
  for (int i = 0; i < STAGES; ++i) {
    if (i < n) load_kv_tile(p, s, b, LK, p.k_batch_stride, sK + i * KV_TILE_BYTES, (hi - 1 - i) * DBN);
    cp_async_commit();
  }

  float m_run[4][2], lw[4][2], m_acc[4][2];
  float O[4][DW / 8][4];
  #pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
    m_run[mt][0] = m_run[mt][1] = m_acc[mt][0] = m_acc[mt][1] = NEG_INF;
    lw[mt][0] = lw[mt][1] = 0.f;
    #pragma unroll
    for (int dt = 0; dt < DW / 8; ++dt) O[mt][dt][0] = O[mt][dt][1] = O[mt][dt][2] = O[mt][dt][3] = 0.f;
  }
#if SWEEP
  __shared__ u32 scount[32];
  if (threadIdx.x < 32) scount[threadIdx.x] = 0;  // only thread 0 touches it afterwards
  __syncwarp();
#endif
  u32 accepted = 0;  // bit (it % PSLOTS): tile of iteration it was accepted (uniform)
  u32 skipped = 0;

  for (int it = 0; it < n + STAGES; ++it) {
    const int st = it % STAGES;
    const u32 kbuf = sK + st * KV_TILE_BYTES, vbuf = sV + st * KV_TILE_BYTES;
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // K_it and V_{it-STAGES} are visible; iteration it-1 is finished everywhere
    // Refill the stages iteration it-1 freed: K_{it-1+STAGES}, and V_{it-1} if it was accepted.
    if (it >= 1) {
      const int pst = (it - 1) % STAGES;
      if (it - 1 + STAGES < n) load_kv_tile(p, s, b, LK, p.k_batch_stride, sK + pst * KV_TILE_BYTES, (hi - 1 - (it - 1 + STAGES)) * DBN);
      if (accepted >> ((it - 1) % PSLOTS) & 1u) load_kv_tile(p, s, b, LV, p.v_batch_stride, sV + pst * KV_TILE_BYTES, (hi - 1 - (it - 1)) * DBN);
    }
    cp_async_commit();
    bool accept = false;
    float S[4][4];
    float tmax[4][2];
    if (it < n) {
      const int j = hi - 1 - it;
      #pragma unroll
      for (int mt = 0; mt < 4; ++mt) S[mt][0] = S[mt][1] = S[mt][2] = S[mt][3] = 0.f;
      if (qk_warp) {
      #pragma unroll
      for (int k2 = 0; k2 < HEAD_DIM / 32; ++k2) {
        u32 b0, b1, b2, b3;  // this warp's 8 keys, head-dim chunks 4 k2 .. 4 k2 + 3
        ldmatrix_x4(b0, b1, b2, b3, kbuf + swz(warp * 8 + lane % 8, k2 * 4 + lane / 8, CH));
        #pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
          if (mt < MT) {
            u32 a[4];
            ldmatrix_x4(a[0], a[1], a[2], a[3], sQ + swz(mt * 16 + lane % 16, k2 * 4 + lane / 16, CH));
            mma16816(S[mt], a, b0, b1);
            ldmatrix_x4(a[0], a[1], a[2], a[3], sQ + swz(mt * 16 + lane % 16, k2 * 4 + 2 + lane / 16, CH));
            mma16816(S[mt], a, b2, b3);
          }
        }
      }
      // Masks only where needed: keys past the sequence and past the causal limit. Padding
      // rows (>= R) are not masked; they simply never vote against a skip.
      const int k0 = j * DBN + warp * 8;
      const bool need_mask = j * DBN + DBN > s.lk || (p.causal && s.lq > 1 && j * DBN + DBN - 1 > s.lk - s.lq);
      #pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        if (mt >= MT) break;
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int row = mt * 16 + lane / 4 + hh * 8;
          if (need_mask) {
            const int lim = p.causal ? (r0 + row) / G + s.lk - s.lq : s.lk - 1;
            #pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int key = k0 + 2 * (lane % 4) + e;
              if (!(key < s.lk && key <= lim)) S[mt][hh * 2 + e] = NEG_INF;
            }
          }
          float mx = fmaxf(S[mt][hh * 2], S[mt][hh * 2 + 1]);
          mx = warp_quad_max(mx);
          if (lane % 4 == 0) red[warp * MAXROWS + row] = mx;
        }
      }
      }  // qk_warp
      __syncthreads();
#if SKIP
      bool vote = true;
#endif
      #pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int row = mt * 16 + lane / 4 + hh * 8;
          float t = NEG_INF;
          if (mt < MT) {
            #pragma unroll
            for (int w = 0; w < QKW; ++w) t = fmaxf(t, red[w * MAXROWS + row]);
#if SKIP
            if (row < R) vote = vote && row_votes_skip(t, m_run[mt][hh], p);
#endif
          }
          tmax[mt][hh] = t;
        }
      }
#if SKIP
      // Every warp read the maxima of all rows and holds the same running maxima, so a
      // warp-level vote already gives the CTA-wide decision.
      accept = !__all_sync(0xffffffffu, vote);
#else
      accept = true;
#if SWEEP
      // Every warp computes the same masks; thread 0 counts.
      u32 mask = 0;
      for (int c = 0; c < p.num_lambdas; ++c) {
        bool v = true;
        #pragma unroll
        for (int mt = 0; mt < 4; ++mt)
          #pragma unroll
          for (int hh = 0; hh < 2; ++hh)
            if (mt < MT && mt * 16 + lane / 4 + hh * 8 < R)
              v = v && row_votes_skip_at(tmax[mt][hh], m_run[mt][hh], p.scale_log2, p.log2_lambdas[c]);
        mask |= (u32)(__all_sync(0xffffffffu, v) ? 1u : 0u) << c;
      }
      if (threadIdx.x == 0) sweep_count(scount, mask);
#endif
#endif
      if (!accept) ++skipped;
    }
    // P V for the tile of iteration it - STAGES (its V arrived with this iteration's wait).
    const int old = it - STAGES;
    if (old >= 0 && (accepted >> (old % PSLOTS) & 1u)) {
      const u32 pslot = sP + (u32)(old % PSLOTS) * p_slot_bytes;
      #pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        if (mt >= MT) break;
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const float mnew = m_ring[(old % PSLOTS) * MAXROWS + mt * 16 + lane / 4 + hh * 8];
          if (mnew > m_acc[mt][hh]) {
            const float al = m_acc[mt][hh] == NEG_INF ? 0.f : fast_exp2((m_acc[mt][hh] - mnew) * p.scale_log2);
            #pragma unroll
            for (int dt = 0; dt < DW / 8; ++dt) O[mt][dt][hh * 2] *= al, O[mt][dt][hh * 2 + 1] *= al;
            m_acc[mt][hh] = mnew;
          }
        }
#if DW >= 16
        // d >= 128: this warp's DW columns as pairs of 8-column chunks (d = 256: two pairs).
        #pragma unroll
        for (int kk = 0; kk < DBN / 16; ++kk) {
          u32 a[4];
          ldmatrix_x4(a[0], a[1], a[2], a[3], pslot + pswz(mt * 16 + lane % 16, kk * 2 + lane / 16));
          #pragma unroll
          for (int cp = 0; cp < DW / 16; ++cp) {
            u32 b0, b1, b2, b3;
            ldmatrix_x4_trans(b0, b1, b2, b3,
                              vbuf + swz(kk * 16 + lane % 8 + ((lane / 8) % 2) * 8, warp * (DW / 8) + cp * 2 + lane / 16, CH));
            mma16816(O[mt][2 * cp], a, b0, b1);
            mma16816(O[mt][2 * cp + 1], a, b2, b3);
          }
        }
#else
        #pragma unroll
        for (int k2 = 0; k2 < DBN / 32; ++k2) {
          u32 a[4], b0, b1, b2, b3;  // 32 keys of this warp's 8 columns
          ldmatrix_x4_trans(b0, b1, b2, b3, vbuf + swz(k2 * 32 + lane % 8 + (lane / 8) * 8, warp, CH));
          ldmatrix_x4(a[0], a[1], a[2], a[3], pslot + pswz(mt * 16 + lane % 16, k2 * 4 + lane / 16));
          mma16816(O[mt][0], a, b0, b1);
          ldmatrix_x4(a[0], a[1], a[2], a[3], pslot + pswz(mt * 16 + lane % 16, k2 * 4 + 2 + lane / 16));
          mma16816(O[mt][0], a, b2, b3);
        }
#endif
      }
    }
    if (accept) {
      // P = exp2((S - m) * scale_log2) into slot it % PSLOTS (not the one just read).
      const int slot = it % PSLOTS;
      const u32 pslot = sP + (u32)slot * p_slot_bytes;
      #pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        if (mt >= MT) break;
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int row = mt * 16 + lane / 4 + hh * 8;
          const float mn = fmaxf(m_run[mt][hh], tmax[mt][hh]);
          const float ms = mn == NEG_INF ? 0.f : mn * p.scale_log2;
          if (qk_warp) {  // (the other warps own no keys: their row sums stay 0)
            const float al = fast_exp2(m_run[mt][hh] * p.scale_log2 - ms);
            const float e0 = fast_exp2(S[mt][hh * 2] * p.scale_log2 - ms);
            const float e1 = fast_exp2(S[mt][hh * 2 + 1] * p.scale_log2 - ms);
            const float rs = e0 + e1;
            asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(pslot + pswz(row, warp) + (lane % 4) * 4), "r"(pack2(e0, e1)));
            lw[mt][hh] = lw[mt][hh] * al + rs;
          }
          m_run[mt][hh] = mn;
          if (warp == 0 && lane % 4 == 0) m_ring[slot * MAXROWS + row] = mn;
        }
      }
      accepted |= 1u << slot;
    } else {
      accepted &= ~(1u << (it % PSLOTS));
    }
  }
  cp_async_wait<0>();

  // Row sums: quad, then across warps (all warps followed the same m sequence).
  #pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
    if (mt >= MT) break;
    #pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const float l = warp_quad_sum(lw[mt][hh]);
      if (lane % 4 == 0) red[warp * MAXROWS + mt * 16 + lane / 4 + hh * 8] = l;
    }
  }
  __syncthreads();

  const i64 rows_total = (i64)p.batch * p.max_lq;
  #pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
    if (mt >= MT) break;
    #pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const int row = mt * 16 + lane / 4 + hh * 8;
      if (row >= R) continue;
      float l = 0.f;
      #pragma unroll
      for (int w = 0; w < DWARPS; ++w) l += red[w * MAXROWS + row];
      const float inv = l > 0.f ? 1.f / l : 0.f;
      const float lse = lse_of(m_run[mt][hh] * p.scale, l);
      const int tok = (r0 + row) / G, head = kh * G + (r0 + row) % G;
      if (p.num_splits == 1) {
        u16 *dst = p.o + q_offset(p, s, b, tok, head, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
        #pragma unroll
        for (int dt = 0; dt < DW / 8; ++dt)
          if (dim_col(warp * DW + dt * 8)) *(u32 *)(dst + warp * DW + dt * 8 + 2 * (lane % 4)) = pack2(O[mt][dt][hh * 2] * inv, O[mt][dt][hh * 2 + 1] * inv);
        if (p.lse && warp == 0 && lane % 4 == 0) p.lse[(i64)(s.q_start + tok) * p.hq + head] = lse;
      } else {
        const i64 wrow = ((i64)split * rows_total + (i64)b * p.max_lq + tok) * p.hq + head;
        float *dst = p.ws_o + wrow * HEAD_DIM + warp * DW;
        #pragma unroll
        for (int dt = 0; dt < DW / 8; ++dt)
          *(float2 *)(dst + dt * 8 + 2 * (lane % 4)) = make_float2(O[mt][dt][hh * 2] * inv, O[mt][dt][hh * 2 + 1] * inv);
        if (warp == 0 && lane % 4 == 0) p.ws_lse[wrow] = lse;
      }
    }
  }
  flush_stats(p, (u64)n, (u64)skipped);
#if SWEEP
  if (threadIdx.x == 0) sweep_flush(p, scount, (u64)n);
#endif
}
