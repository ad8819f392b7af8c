// Decode for Hopper (sm_90a) of calls of several row tiles (speculative decoding with GQA: 17-64
// packed rows, d = 128): one CTA per (KV head, group of up to NW = 4 row tiles of 8 packed rows,
// split, sequence). Compiled after kernels/decode_sm90.cu (whose helpers it uses; that file's
// entry point is left out under DECODE_WARPS) as its own family (src/cuda/nvrtc.rs
// Family::DecodeWarps); the plan (src/attn/plan.rs decode_warps) gives such calls 8-row tiles.
//
// Why: the Hopper decode kernel runs 32 packed rows as two 16-row tiles, one CTA each, whose four
// warps share each KV tile's keys and meet at a row-max exchange per tile; that chain, ~2 us per KV
// tile per CTA, bound those calls at 2.9-3.2 TB/s (runs 244, 249). Here each consumer warp is one
// 8-row tile over all 64 keys of every KV tile: its S^T (4 x 8 m16n8k16), row maxima, vote,
// exponentials and P V (8 x 4) are its own, with no barrier between warps, so the warps' chains
// overlap, and K and V of a KV tile are read from DRAM once for all the CTA's rows. A fifth,
// producer warp copies K and V into a ring of ST slots (cp.async, completed on full mbarriers; the
// consumer warps free a slot on its empty barrier). The prototype (bench/micro/warp_rows_decode.py,
// run 250) ran dense 32-row calls 1.16-1.35x the two-tile kernel, at 3.8-4.3 TB/s.
//
// Skip-Softmax: each warp decides its tile alone (SPEC section 1, the plan's 8-row tiles); it
// leaves its decision in a byte of `keepw` and arrives on the tile's `decided` barrier; the
// producer copies the tile's V only when some warp kept it, else it completes the V slot's phase
// with a plain arrival. A warp does the P V of a tile one tile later (LAG 1, P and its max in
// registers), so that V's copy, issued only after every warp decided, has a tile's time to land.
// The dense specialisation copies every V, on the same schedule (a tile behind K).
//
// Every warp's row tile is a plan tile: the CPU backend reproduces the same decisions from the
// plan (block_m 8). Splits write the workspace (kernels/merge.cu merges them); one split writes O.

#define NW 4                   // consumer warps = row tiles per CTA
#define WROWS 8                // packed rows per row tile (the plan's block_m)
#define WTHREADS (32 * (NW + 1))
#define ST KSLOTS              // K and V ring slots (host: src/cuda/nvrtc.rs decode_warps_ring)
#define DS 2                   // decision ring (SKIP)
static_assert(HEAD_DIM == 128 && DIM == HEAD_DIM, "the row-tile warps kernel is built at d = 128");
// The producer's copies of KV tile `j` of tensor `base` (K or V of KV head kh) into `dst`,
// completing on `bar` (32 arrivals): lane l copies chunk l % 16 of rows 2 i + l / 16; rows past
// the sequence are zero-filled. Paged: `e` holds the tile's block-table entries
// (warps_tile_entries, read a tile ahead so that no copy waits for the table).
#if PAGED
// Pages of 2^LG keys (LG = 6: 64 keys or more, one page per tile; validate.rs: powers of two of
// at least 16): PR rows of the tile per page, whose copies step through it as contiguous ones do.
template <int LG>
DEVI void warps_copy_pages(const KernelParams &p, const Seq &s, const u16 *hb, const u16 *base, i64 bs, i64 rs,
                           const int (&e)[4], int row0, u32 dst) {
  const int lane = threadIdx.x % 32, c = lane % 16, r0 = lane / 16;
  constexpr int PR = LG >= 6 ? DBN : (1 << LG), NPG = DBN / PR;
  const int mask = (1 << p.page_size_log2) - 1;
  #pragma unroll
  for (int q = 0; q < NPG; ++q) {
    const u16 *src = hb + (i64)e[q] * bs + (i64)(((row0 + q * PR) & mask) + r0) * rs;
    #pragma unroll
    for (int i = q * PR / 2; i < (q + 1) * PR / 2; ++i) {
      const int r = 2 * i + r0;
      const bool valid = row0 + r < s.lk;
      cp_async16_l2(dst + swz(r, c, CH), valid ? src : base, valid);
      src += 2 * rs;
    }
  }
}

// The block-table entries of tile j (0 for pages past the sequence, or all 0 when !valid).
DEVI void warps_tile_entries(const KernelParams &p, const Seq &s, int b, int j, bool valid, int (&e)[4]) {
  const int lg = p.page_size_log2, row0 = j * DBN, first = row0 >> lg;
  const int np = lg >= 6 ? 1 : DBN >> lg, pr = lg >= 6 ? DBN : 1 << lg;
  const int *bt = p.block_table + (i64)b * p.block_table_stride;
  #pragma unroll
  for (int q = 0; q < 4; ++q) e[q] = valid && q < np && row0 + q * pr < s.lk ? __ldg(bt + first + q) : 0;
}
#endif

DEVI void warps_copy_tile(const KernelParams &p, const Seq &s, int b, int kh, const u16 *base, i64 bs, i64 rs, i64 hs,
                          int j, u32 dst, u32 bar, const int (&e)[4]) {
  const int row0 = j * DBN;
#if PAGED
  const u16 *hb = base + (i64)kh * hs + (threadIdx.x % 16) * 8;
  if (p.page_size_log2 == 4) warps_copy_pages<4>(p, s, hb, base, bs, rs, e, row0, dst);
  else if (p.page_size_log2 == 5) warps_copy_pages<5>(p, s, hb, base, bs, rs, e, row0, dst);
  else warps_copy_pages<6>(p, s, hb, base, bs, rs, e, row0, dst);
#else
  (void)e;
  const int lane = threadIdx.x % 32, c = lane % 16, r0 = lane / 16;
  const u16 *src = base + kv_offset(p, s, b, row0 + r0, kh, bs, rs, hs) + c * 8;
  #pragma unroll
  for (int i = 0; i < DBN / 2; ++i) {
    const int r = 2 * i + r0;
    const bool valid = row0 + r < s.lk;
    cp_async16_l2(dst + swz(r, c, CH), valid ? src : base, valid);
    src += 2 * rs;
  }
#endif
  cp_async_mbar_arrive(bar);
}

extern "C" __global__ void __launch_bounds__(WTHREADS, DECODE90_CTAS_PER_SM) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  pdl_wait();
  pdl_trigger();  // the merge kernel that follows waits for this grid to complete
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int G = p.group;
  const int row_tiles = (p.max_lq * G + WROWS - 1) / WROWS;
  const int groups = (row_tiles + NW - 1) / NW;
  const int kh = blockIdx.x / groups, split = blockIdx.y, b = blockIdx.z + p.batch0;
  const int t0 = (blockIdx.x % groups) * NW;  // this CTA's first row tile
  const Seq s = load_seq(p, b);
  const int rows = s.lq * G;
  // Row tiles of this CTA that hold rows of the sequence (a shorter sequence of a ragged batch
  // may leave some, or all, empty): the empty barriers count these warps only.
  const int nact = min(NW, (rows - t0 * WROWS + WROWS - 1) / WROWS);
  if (rows - t0 * WROWS <= 0) return;

  // Shared layout (host: decode_warps_smem): K slots | V slots | mbarriers kfull[ST] kempty[ST]
  // vfull[ST] vempty[ST] decided[DS] | keepw[DS].
  const u32 sK = smem_u32(smem), sV = sK + ST * TILE_SMEM;
  const u32 bar0 = sV + ST * TILE_SMEM;
#define KFULL(i) (bar0 + 8 * (i))
#define KEMPTY(i) (bar0 + 8 * (ST + (i)))
#define VFULL(i) (bar0 + 8 * (2 * ST + (i)))
#define VEMPTY(i) (bar0 + 8 * (3 * ST + (i)))
#define DECIDED(i) (bar0 + 8 * (4 * ST + (i)))
  volatile u32 *keepw = (volatile u32 *)(smem + 2 * ST * TILE_SMEM + 8 * (4 * ST + DS));
  if (threadIdx.x == 0) {
    for (int i = 0; i < ST; ++i) {
      mbar_init(KFULL(i), 32);
      mbar_init(VFULL(i), 32);
      // Every lane of a consumer warp arrives on the empty barriers (32 per warp), after its own
      // reads of the slot: lane 0 arriving for its warp after a __syncwarp is ordered as well
      // by the PTX memory model, but compute-sanitizer racecheck does not follow __syncwarp into
      // the arrival and reported the producer's copies as racing the warp's reads (run 280).
      mbar_init(KEMPTY(i), 32 * nact);
      mbar_init(VEMPTY(i), 32 * nact);
    }
    for (int i = 0; i < DS; ++i) mbar_init(DECIDED(i), nact);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if (threadIdx.x < DS) keepw[threadIdx.x] = 0u;  // the bytes of empty warps stay 0
#if SWEEP
  __shared__ u32 scount[NW][32];  // [warp][candidate]
  for (int i = threadIdx.x; i < NW * 32; i += WTHREADS) scount[i / 32][i % 32] = 0;
#endif
  __syncthreads();

  const TileRange tr = decode_split_tiles(p, s, split, DBN);
  const int hi = tr.hi, n = tr.hi - tr.lo;
#define TILE_OF(it) (hi - 1 - (it))

  if (warp == NW) {
    // The producer: K of tile it into slot it % ST once the consumers freed it, then V of tile
    // it - 1 (SKIP: once every warp decided it, only if one kept it). V one tile behind K in the
    // dense build too (since session 49): a consumer does P V of a tile one iteration after its
    // S, so the slot V waits for frees one iteration after K's; copying V with its own K held
    // each K copy behind that later free, so K ran 2 iterations ahead of its use and V 3. With V
    // a tile behind, K's copies run 3 ahead, as the one-token kernel's do (KSLOTS 3).
    // Paged: the block-table entries of the tile being copied (ec), of the next one (en, read a
    // tile ahead: a table read right before the copies waited an L2 round trip per tile, and
    // the calls ran at 0.40-0.49x of contiguous, run 251) and of the previous one (ep, whose V
    // is copied after the K of the tile after it).
    int ec[4] = {0, 0, 0, 0}, en[4] = {0, 0, 0, 0}, ep[4] = {0, 0, 0, 0};
#if PAGED
    warps_tile_entries(p, s, b, TILE_OF(0), n > 0, ec);
#endif
    for (int it = 0; it < n + 1; ++it) {
#if PAGED
      warps_tile_entries(p, s, b, TILE_OF(it + 1), it + 1 < n, en);
#endif
      if (it < n) {
        const int sl = it % ST;
        if (it >= ST) mbar_wait(KEMPTY(sl), (u32)(it / ST - 1) & 1u);
        warps_copy_tile(p, s, b, kh, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, TILE_OF(it),
                        sK + sl * TILE_SMEM, KFULL(sl), ec);
      }
      if (it >= 1) {
        const int t = it - 1, sl = t % ST;
#if SKIP
        mbar_wait(DECIDED(t % DS), (u32)(t / DS) & 1u);
#if WARPS_PRODUCER_DELAY_NS > 0
        // A test switch (BLASST_DECODE_WARPS_PRODUCER_DELAY_NS, read at compile time, 0 in every
        // shipped kernel): the producer held between its decision wait and its VEMPTY wait, the
        // window in which the consumers once could free the slot twice (see the consumers' V
        // wait below). scripts/device-check.sh runs the tile-by-tile GPU test with it: the
        // kernel before the fix hung there (run 256). (Timed on the global timer: one
        // __nanosleep may return early.)
        {
          u64 t0, now;
          asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t0));
          do {
            __nanosleep(1000);
            asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(now));
          } while (now - t0 < (u64)WARPS_PRODUCER_DELAY_NS);
        }
#endif
        const u32 keep = keepw[t % DS];
#else
        const u32 keep = 1u;
#endif
        if (t >= ST) mbar_wait(VEMPTY(sl), (u32)(t / ST - 1) & 1u);
        if (keep)
          warps_copy_tile(p, s, b, kh, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, TILE_OF(t),
                          sV + sl * TILE_SMEM, VFULL(sl), ep);
        else
          mbar_arrive(VFULL(sl));  // no copy: the slot's phase completes (nobody reads it)
      }
      #pragma unroll
      for (int q = 0; q < 4; ++q) ep[q] = ec[q], ec[q] = en[q];
    }
    return;
  }
  if (warp >= nact) return;

  // Consumer warp `warp`: row tile t0 + warp, packed rows r0 .. r0 + R - 1 (row r: token r / G,
  // query head kh * G + r % G). Q^T as the B operand: rows r0 + lane / 4.
  const int r0 = (t0 + warp) * WROWS, R = min(rows - r0, WROWS);
  u32 qb[KSTEPS][2];
  {
    const int r = r0 + lane / 4;
    const bool valid = lane / 4 < R;
    const u16 *q = p.q + (valid ? q_offset(p, s, b, r / G, kh * G + r % G, p.q_batch_stride, p.q_row_stride, p.q_head_stride) : 0);
    #pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
      qb[ks][0] = valid ? *(const u32 *)(q + ks * 16 + 2 * (lane % 4)) : 0u;
      qb[ks][1] = valid ? *(const u32 *)(q + ks * 16 + 8 + 2 * (lane % 4)) : 0u;
    }
  }
  // This thread's rows: 2 (lane % 4) + e of the tile; O^T: head-dim md * 16 + lane / 4 (+ 8).
  float m_run[2] = {NEG_INF, NEG_INF}, m_acc[2] = {NEG_INF, NEG_INF}, lw[2] = {0.f, 0.f};
  float O[KSTEPS][4];
  #pragma unroll
  for (int md = 0; md < KSTEPS; ++md) O[md][0] = O[md][1] = O[md][2] = O[md][3] = 0.f;
  u32 pp[4][2];                 // P^T B fragments of the previous tile
  float mp[2] = {0.f, 0.f};     // its running max
  bool prev = false;            // the previous tile was kept
  u32 skipped = 0;

  for (int it = 0; it <= n; ++it) {
    bool accept = false;
    u32 pc[4][2];
    float mc[2] = {0.f, 0.f};
    if (it < n) {
      const int j = TILE_OF(it), sl = it % ST;
      mbar_wait(KFULL(sl), (u32)(it / ST) & 1u);
      const u32 kbuf = sK + sl * TILE_SMEM;
      // S^T (64 keys x 8 rows): 4 key blocks, two accumulator chains each.
      float S[4][4], S2[4][4];
      #pragma unroll
      for (int mb = 0; mb < 4; ++mb)
        #pragma unroll
        for (int i = 0; i < 4; ++i) S[mb][i] = S2[mb][i] = 0.f;
      #pragma unroll
      for (int ks = 0; ks < KSTEPS; ++ks) {
        #pragma unroll
        for (int mb = 0; mb < 4; ++mb) {
          u32 a[4];
          ldmatrix_x4(a[0], a[1], a[2], a[3], kbuf + swz(mb * 16 + lane % 16, ks * 2 + lane / 16, CH));
          mma16816((ks & 1) ? S2[mb] : S[mb], a, qb[ks][0], qb[ks][1]);
        }
      }
      mbar_arrive(KEMPTY(sl));  // (every lane: see the barriers' initialisation)
      const bool need_mask = j * DBN + DBN > s.lk || (p.causal && s.lq > 1 && j * DBN + DBN - 1 > s.lk - s.lq);
      float tmax[2];
      #pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int row = r0 + 2 * (lane % 4) + e;
        const int lim = p.causal ? row / G + s.lk - s.lq : s.lk - 1;
        float mx = NEG_INF;
        #pragma unroll
        for (int mb = 0; mb < 4; ++mb) {
          S[mb][e] += S2[mb][e];
          S[mb][2 + e] += S2[mb][2 + e];
          if (need_mask) {
            const int key = j * DBN + mb * 16 + lane / 4;
            if (!(key < s.lk && key <= lim)) S[mb][e] = NEG_INF;
            if (!(key + 8 < s.lk && key + 8 <= lim)) S[mb][2 + e] = NEG_INF;
          }
          mx = fmaxf(mx, fmaxf(S[mb][e], S[mb][2 + e]));
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 4));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 8));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 16));
        tmax[e] = mx;
      }
#if SKIP
      bool vote = true;
      #pragma unroll
      for (int e = 0; e < 2; ++e)
        if (2 * (lane % 4) + e < R) vote = vote && row_votes_skip(tmax[e], m_run[e], p);
      accept = !__all_sync(0xffffffffu, vote);
      if (lane == 0) {
        ((volatile unsigned char *)(keepw + it % DS))[warp] = accept ? 1 : 0;
        mbar_arrive(DECIDED(it % DS));  // (release: the producer reads the byte after its wait)
      }
#else
      accept = true;
#if SWEEP
      {
        // (A row past the tile's rows passes -inf, which always votes to skip: the vote is the
        // tile's rows'.)
        const bool v0 = 2 * (lane % 4) < R, v1 = 2 * (lane % 4) + 1 < R;
        const u32 mask = warp_sweep_mask(p, v0 ? tmax[0] : NEG_INF, m_run[0], v1 ? tmax[1] : NEG_INF, m_run[1]);
        if (lane == 0) sweep_count(scount[warp], mask);
      }
#endif
#endif
      if (!accept) ++skipped;
      if (accept) {
        // P = exp2((S - m) * scale_log2) with the new running max; the row sums follow it, O is
        // rescaled when its P V runs.
        #pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float mn = fmaxf(m_run[e], tmax[e]);
          const float ms = mn == NEG_INF ? 0.f : mn * p.scale_log2;
          const float al = fast_exp2(m_run[e] * p.scale_log2 - ms);
          float sum = 0.f;
          #pragma unroll
          for (int mb = 0; mb < 4; ++mb) {
            S[mb][e] = fast_exp2(S[mb][e] * p.scale_log2 - ms);
            S[mb][2 + e] = fast_exp2(S[mb][2 + e] * p.scale_log2 - ms);
            sum += S[mb][e] + S[mb][2 + e];
          }
          lw[e] = lw[e] * al + sum;
          m_run[e] = mn;
          mc[e] = mn;
        }
        #pragma unroll
        for (int mb = 0; mb < 4; ++mb) {
          pc[mb][0] = movmatrix_t(pack2(S[mb][0], S[mb][1]));
          pc[mb][1] = movmatrix_t(pack2(S[mb][2], S[mb][3]));
        }
      }
    }
    // O^T += V^T P^T for the previous tile (it - 1), if this warp kept it; then its V slot is free.
    // Every warp waits for the slot's V phase first, kept or not (session 48): the phase
    // completes only after the producer's wait on VEMPTY for the slot's previous tile, so no
    // warp can free the slot twice before that wait. A warp that skipped the tile used to free
    // it at once; when every warp skipped tile t and all freed it before the producer woke from
    // its DECIDED(t) wait (at a split's last tile nothing else stands between the two), the
    // producer's VEMPTY wait for tile t - ST saw tile t's phase complete as well, waited for the
    // phase after it, and the CTA deadlocked. Timing hid it; memcheck hung on it (runs 253-255),
    // and BLASST_DECODE_WARPS_PRODUCER_DELAY_NS (a delay in the producer at exactly that point)
    // forces it (run 256); tests/warps_protocol_model.rs models this protocol. The wait costs
    // the skipping warps nothing where no warp kept the tile (the producer's plain arrival
    // follows its decision wait) and otherwise waits for the copy that the keeping warps wait
    // for anyway (0.999-1.008x, runs 256 and 258).
    if (it >= 1) {
      const int t = it - 1, sl = t % ST;
      mbar_wait(VFULL(sl), (u32)(t / ST) & 1u);
      if (prev) {
        #pragma unroll
        for (int e = 0; e < 2; ++e) {
          if (mp[e] > m_acc[e]) {
            const float al = m_acc[e] == NEG_INF ? 0.f : fast_exp2((m_acc[e] - mp[e]) * p.scale_log2);
            #pragma unroll
            for (int md = 0; md < KSTEPS; ++md) O[md][e] *= al, O[md][2 + e] *= al;
            m_acc[e] = mp[e];
          }
        }
        const u32 vbuf = sV + sl * TILE_SMEM;
        #pragma unroll
        for (int md = 0; md < KSTEPS; ++md) {
          #pragma unroll
          for (int kk = 0; kk < 4; ++kk) {
            u32 a[4];  // V^T: head-dim rows md * 16 .. + 15, keys kk * 16 .. + 15
            ldmatrix_x4_trans(a[0], a[1], a[2], a[3], vbuf + swz(kk * 16 + lane % 8 + 8 * (lane / 16), md * 2 + (lane / 8) % 2, CH));
            mma16816(O[md], a, pp[kk][0], pp[kk][1]);
          }
        }
      }
      mbar_arrive(VEMPTY(sl));
    }
    prev = accept;
    #pragma unroll
    for (int mb = 0; mb < 4; ++mb) pp[mb][0] = pc[mb][0], pp[mb][1] = pc[mb][1];
    mp[0] = mc[0];
    mp[1] = mc[1];
  }

  // The tile's rows: sums over the lanes that share them, then O (one split) or this split's
  // normalised rows and LSE in the workspace.
  const i64 rows_total = (i64)p.batch * p.max_lq;
  #pragma unroll
  for (int e = 0; e < 2; ++e) {
    float l = lw[e];
    l += __shfl_xor_sync(0xffffffffu, l, 4);
    l += __shfl_xor_sync(0xffffffffu, l, 8);
    l += __shfl_xor_sync(0xffffffffu, l, 16);
    const int row = 2 * (lane % 4) + e;
    if (row >= R) continue;
    const int pr = r0 + row, tok = pr / G, head = kh * G + pr % G;
    const float inv = l > 0.f ? 1.f / l : 0.f;
    const float lse = lse_of(m_run[e] * p.scale, l);
    if (p.num_splits == 1) {
      u16 *dst = p.o + q_offset(p, s, b, tok, head, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
      #pragma unroll
      for (int md = 0; md < KSTEPS; ++md) {
        dst[md * 16 + lane / 4] = (u16)(pack2(O[md][e] * inv, 0.f) & 0xffffu);
        dst[md * 16 + 8 + lane / 4] = (u16)(pack2(O[md][2 + e] * inv, 0.f) & 0xffffu);
      }
      if (p.lse && lane / 4 == 0) p.lse[(i64)(s.q_start + tok) * p.hq + head] = lse;
    } else {
      const i64 wrow = ((i64)split * rows_total + (i64)b * p.max_lq + tok) * p.hq + head;
      #pragma unroll
      for (int md = 0; md < KSTEPS; ++md) {
        p.ws_o[wrow * HEAD_DIM + md * 16 + lane / 4] = O[md][e] * inv;
        p.ws_o[wrow * HEAD_DIM + md * 16 + 8 + lane / 4] = O[md][2 + e] * inv;
      }
      if (lane / 4 == 0) p.ws_lse[wrow] = lse;
    }
  }
  if (p.stats && lane == 0) {
    atomicAdd(p.stats, (u64)n);
    atomicAdd(p.stats + 1, (u64)skipped);
  }
#if SWEEP
  if (lane == 0) sweep_flush(p, scount[warp], (u64)n);
#endif
#undef TILE_OF
}
