// Decode for Hopper (sm_90a): split-KV Skip-Softmax for row tiles of up to 16 packed rows (query
// tokens x the query heads sharing a KV head; 8 at d = 256), one CTA per (KV head, row tile,
// split, sequence): the plan cuts 17-64 rows (9-16 at d = 256) into such tiles. Same plan and
// decisions as kernels/decode.cu (64-key tiles, last to first, the plan's splits); that kernel
// stays for more rows and for older GPUs.
//
// Built to be bandwidth-bound rather than issue-bound (the portable kernel spends ~575
// instructions per warp per tile, mostly address arithmetic and 16-byte copies):
// * Loads complete on one mbarrier per buffer (cp.async.mbarrier.arrive), so no warp waits for
//   another to publish a tile, and the only CTA barrier per tile is the row-max exchange. Tiles
//   are stored XOR-swizzled (common.cuh swz: 16-byte chunks permuted within each 128-byte line)
//   so that ldmatrix reads 8 rows from 8 different bank groups. Rows padded to row bytes + 16
//   did that too but made every 256-byte row straddle three 128-byte smem lines: the copies then
//   fetched 1.5 sectors per sector of data from L2 (ncu), and L2 throughput (95 %), not DRAM
//   (89 %), was the limit. (Per-row bulk copies, cp.async.bulk, were tried first: their
//   operands are warp-uniform, so ptxas loops over the lanes - ~500 instructions per tile.
//   TMA copies of whole tiles, thread 0 issuing two 64-column boxes into TMA's layout, measured
//   neutral: one-token calls, which stream DRAM, in run 97, and the chain-bound calls of several
//   row tiles in run 249, where the copy instructions turned out not to lengthen the chain;
//   bench/RESULTS.md sessions 14 and 45.)
// * Rows are the N dimension of the MMA (S^T = K Q^T, m16n8k16), so 1..8 rows cost one 8-row
//   tile instead of a padded 16-row one. Q lives in registers for the whole kernel.
// * Each of the 4 warps owns 16 keys of every tile, for both S^T and O^T += V^T P^T: the
//   probabilities never leave registers (movmatrix turns the S^T accumulator into the B operand
//   of P V), so the only exchange between warps per tile is the row maxima (one barrier). Every
//   warp holds the same running max and decisions; the warps' partial O and row sums, all
//   scaled to the same max, are added once at the end.
// * K is fetched KSLOTS tiles ahead. Right after tile t's decision every thread issues V_t (only
//   if the tile is kept) and K_{t+KSLOTS}; P V for tile t runs LAG iterations later, when V_t has
//   had time to arrive, from probabilities kept in registers. A skipped tile costs its K bytes,
//   its S^T, the max exchange and the vote.
// * The copies carry an L2 prefetch hint of 128 bytes (+2-4 % of DRAM bandwidth on the H200).
// Measured (ncu, 16 x 32K dense): DRAM-bound, issue slots ~21 % busy; the portable kernel was
// issue-bound at ~57 %.
//
// Splits: with 2-4 splits (and all clusters resident at once) the host launches the splits of
// each (sequence, KV head) as one thread-block cluster, and they merge in distributed shared
// memory (cluster_merge_splits); otherwise the splits write the workspace for kernels/merge.cu.
// (Measured on the H200, 16 x 32K, 2 splits: dense +0.4 %, skip +1.0-1.2 %;
// bench/runs/session9/run47-ab-decode2-*, run48-ab-decode3-*.)
//
// Buffer reuse is ordered by the one barrier per tile: K buffer t % KSLOTS is refilled after the
// barrier of tile t (all S^T of tile t are done before it); V buffer t % VSLOTS after the barrier
// of tile t, and its previous tile (t - VSLOTS) had its P V at iteration t - 1 (VSLOTS = LAG + 1).

#define DWARPS 4
#define DTHREADS (DWARPS * 32)
#define DBN 64
#define WKEYS 16                   // keys per warp per tile
#define ROWB (HEAD_DIM * 2)        // bytes of one K/V row
#define TILE_SMEM (DBN * ROWB)
#define KSTEPS (HEAD_DIM / 16)     // k-steps of S^T, m-blocks of O^T
// KSLOTS and LAG come from the host (src/cuda/nvrtc.rs decode90_config).
#define VSLOTS (LAG + 1)
#define MAXR 16

// Transpose of an 8x8 matrix of 16-bit elements held in the mma fragment layout.
DEVI u32 movmatrix_t(u32 x) {
  u32 y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
  return y;
}

// All 128 threads load a 64-row tile: thread t copies 16-byte chunk t % CH of rows
// t / CH + i * RSTEP with cp.async (rows past the sequence are zero-filled) and then arrives on
// the tile's mbarrier once its copies have landed (cp.async.mbarrier.arrive.noinc; the barrier
// expects one arrival per thread).
#define CH (HEAD_DIM / 8)
#define RSTEP (DTHREADS / CH)
#define NLOAD (DBN / RSTEP)
// cp.async with an L2 prefetch hint of 128 bytes: 2-4 % more DRAM bandwidth than without
// (256 bytes: no gain), measured on the H200 (bench/RESULTS.md). Not where a head's row is an
// odd number of 64-byte halves (DIM = 96, 160, 224: every other row starts mid-line): at
// DIM = 96 a plain read of the benchmark's cache in this kernel's pattern (two CTAs per SM,
// 2 splits) streams 3.68 TB/s with the hint and 4.04 without it (bench/micro/dram_pattern.py,
// session 34), and the kernel without it decodes 16 x 32K 4-5 % (d = 96) and 6-8 % (d = 160)
// faster (run 209). At DIM = 80 (160-byte rows) dropping it was mixed (-7 % to +6 %), at
// DIM = 40 mostly slower (to -19 % paged): those keep it. DECODE90_EVICT_FIRST (off;
// src/cuda/nvrtc.rs) adds an evict-first policy: +1-2 % at 1 x 128K, but an illegal
// instruction on partial (zero-filled) tiles.
#if DIM % 64 == 32
#define DECODE90_L2_HINT ""
#else
#define DECODE90_L2_HINT ".L2::128B"
#endif
DEVI void cp_async16_l2(u32 dst, const void *src, bool valid) {
  int n = valid ? 16 : 0;
#if DECODE90_EVICT_FIRST
  u64 pol;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint" DECODE90_L2_HINT " [%0], [%1], 16, %2, %3;\n" ::"r"(dst), "l"(src), "r"(n), "l"(pol));
#else
  asm volatile("cp.async.cg.shared.global" DECODE90_L2_HINT " [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
#endif
}

struct TileLoader {
  const u16 *base;  // contiguous: this thread's chunk of key row 0; paged: its chunk at page 0, row r0
  i64 rs, bs;
  u32 dst;          // this thread's first chunk within a buffer; see TILE_DST
#if !PAGED_SMALL
  u32 dst1;         // the same for rows of the other swizzle (TILE_DST); small pages need none
#endif
  int r0;
#if DIM < HEAD_DIM
  bool used;        // its chunk holds data (dim_chunk)
#define TILE_USED(L) (L).used
#else
#define TILE_USED(L) true  // (no field: the kernel at its own head dim compiles as without it)
#endif
};

// 16- and 32-key pages (PAGED_SMALL) copy a tile warp by warp: warp w copies rows 16 w .. 16 w + 15,
// which lie in one page (entry 16 w >> log2(page size) of the tile's 4 or 2), lane l chunk l % CH
// of rows 16 w + l / CH + i * WSTEP. So a thread needs one block-table entry per tile and steps
// through its page as the copies of larger pages do (a pointer add per copy); with the rows
// t / CH + i * RSTEP of the other layouts each thread's copies spread over all of the tile's
// pages (an entry, a 64-bit multiply and a select per page in every tile's copy code). Run 238:
// speculative decode (32 packed rows) over 16-key pages +13 % (0.80x -> 0.91x of the contiguous
// call), over 32-key pages +10 %, one-token calls +0.1-1.3 %; the d = 128 small-page kernel went
// from 5344 to 4968 instructions (the 64-key kernel has 4848).
#define WSTEP (32 / CH)
// The shortest split (tiles) whose one-token tiles of up to 8 rows over 16- or 32-key pages take
// their block-table entries from the warps' lanes (decode_body's IN_LANES; run 240).
#define SMALL_PAGE_LANES_MIN_TILES 128
static_assert(DBN == DWARPS * 16 && 32 % CH == 0, "a warp copies 16 whole rows of a tile");

DEVI TileLoader make_loader(const u16 *head_base, i64 rs, i64 bs) {
  TileLoader L;
  const int c = threadIdx.x % CH;
#if PAGED_SMALL
  L.r0 = (threadIdx.x / 32) * 16 + (threadIdx.x % 32) / CH;  // base points at row r0 % WSTEP
#else
  L.r0 = threadIdx.x / CH;
#endif
  L.rs = rs;
  L.bs = bs;
  // Rows r0 + i * RSTEP share row r0's swizzle pattern when i * RSTEP is a multiple of 8, row
  // r0 + RSTEP's otherwise (RSTEP is 16 at d = 64, 8 at d = 128, 4 at d = 256). (PAGED_SMALL
  // uses dst only, see load_tile_small_pages.)
  L.dst = swz(L.r0, c, CH);
#if !PAGED_SMALL
  L.dst1 = swz(L.r0 + RSTEP, c, CH) - RSTEP * ROWB;
#endif
#if PAGED_SMALL
  const int row_in = L.r0 % WSTEP;  // the row within the warp's first WSTEP rows
#else
  const int row_in = L.r0;
#endif
#if DIM < HEAD_DIM
  L.used = dim_chunk(c);
  L.base = head_base + (i64)row_in * rs + (L.used ? c * 8 : 0);  // past DIM: zero-filled, in bounds
#else
  L.base = head_base + (i64)row_in * rs + c * 8;
#endif
  return L;
}

// Where row r0 + i * RSTEP of a tile goes (i is a compile-time constant: no select), from the
// thread's first chunk in the buffer (dst) and the one for rows of the other swizzle (dst1).
#define TILE_DST(i) ((((i) * RSTEP) % 8 == 0 ? dst : dst1) + (i) * RSTEP * ROWB)

// The copies of a tile over pages of 2^LOG2 = 16 or 32 keys (validate.rs: the GPU's pages are
// powers of two of at least 16 keys), warp by warp (make_loader): this thread's rows
// r0 + i * WSTEP lie in page `pe`, from row (r0 & ~15 & (2^LOG2 - 1)) + r0 % WSTEP on. Their swizzle:
// (r0 + i * WSTEP) & 7 = (r0 & 7) ^ ((i * WSTEP) & 7), because r0 & 7 = r0 % WSTEP < WSTEP (16 w is
// a multiple of 8) and i * WSTEP has no bits below WSTEP; so chunk c's slot is dst's with
// (i * WSTEP) & 7 XORed into bits 4-6 (dst = swz(r0, c, CH): those bits hold c ^ (r0 & 7), and a
// row's bytes ROWB are a multiple of 128).
template <int LOG2>
DEVI void load_tile_small_pages(const TileLoader &L, int pe, int row0, int lk, u32 buf) {
  const u16 *src = L.base + (i64)pe * L.bs + (i64)(L.r0 & ~15 & ((1 << LOG2) - 1)) * L.rs;
  const i64 step = (i64)WSTEP * L.rs;
  #pragma unroll
  for (int i = 0; i < NLOAD; ++i) {
    const bool valid = row0 + L.r0 + i * WSTEP < lk && TILE_USED(L);
    cp_async16_l2(buf + (L.dst ^ (u32)(((i * WSTEP) & 7) << 4)) + i * WSTEP * ROWB, valid ? src : L.base, valid);
    src += step;
  }
}

// pe: the block-table entry of this thread's rows of the tile (paged caches: decode_body's
// PageEntries; 0 for a contiguous cache).
DEVI void load_tile(const KernelParams &p, const TileLoader &L, int pe, int row0, int lk, u32 buf, u32 bar) {
#if PAGED_SMALL
  if (p.page_size_log2 == 5) {
    load_tile_small_pages<5>(L, pe, row0, lk, buf);
  } else {
    load_tile_small_pages<4>(L, pe, row0, lk, buf);
  }
#else
  const u32 dst = buf + L.dst, dst1 = buf + L.dst1;
  const i64 step = (i64)RSTEP * L.rs;
#if PAGED
  // Pages of >= 64 keys: the (64-aligned) tile lies in one page, entry pe.
  const u16 *src = L.base + (i64)pe * L.bs + (i64)(row0 & ((1 << p.page_size_log2) - 1)) * L.rs;
  #pragma unroll
  for (int i = 0; i < NLOAD; ++i) {
    const bool valid = row0 + L.r0 + i * RSTEP < lk && TILE_USED(L);
    cp_async16_l2(TILE_DST(i), valid ? src : L.base, valid);
    src += step;
  }
#else
  (void)pe; (void)p;
  const u16 *src = L.base + (i64)row0 * L.rs;
  if (row0 + DBN <= lk) {
    #pragma unroll
    for (int i = 0; i < NLOAD; ++i) {
      cp_async16_l2(TILE_DST(i), TILE_USED(L) ? src : L.base, TILE_USED(L));
      src += step;
    }
  } else {
    #pragma unroll
    for (int i = 0; i < NLOAD; ++i) {
      const bool valid = row0 + L.r0 + i * RSTEP < lk && TILE_USED(L);
      cp_async16_l2(TILE_DST(i), valid ? src : L.base, valid);
      src += step;
    }
  }
#endif  // PAGED
#endif  // PAGED_SMALL
  cp_async_mbar_arrive(bar);
}
#undef TILE_DST

DEVI void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// The address of `local` (a shared-memory address) in the shared memory of cluster CTA `rank`.
DEVI u32 dsmem_addr(const void *local, int rank) {
  u32 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(smem_u32(local)), "r"(rank));
  return r;
}
DEVI float ld_dsmem(u32 a) {
  float x;
  asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(x) : "r"(a));
  return x;
}
DEVI float2 ld_dsmem2(u32 a) {
  float2 x;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];\n" : "=f"(x.x), "=f"(x.y) : "r"(a));
  return x;
}

// The split merge of kernels/merge.cu inside the kernel, when the host launched the splits of
// each (sequence, KV head) as one thread-block cluster (2 to 4 splits; cluster rank = split):
// every CTA has left its normalised rows and their LSE in its shared memory (cm_o, cm_lse);
// after a cluster barrier, CTA `split` merges rows split, split + S, ... by reading all the
// splits' rows over distributed shared memory, and writes O and LSE. The second barrier keeps
// every CTA's shared memory alive until the others have read it. Saves the merge kernel, its
// dependent launch and the workspace round trip (same arithmetic as kernels/merge.cu).
DEVI void cluster_merge_splits(const KernelParams &p, const Seq &s, int b, int kh, int r0, int split, int R,
                               const float *cm_o, const float *cm_lse) {
  cluster_sync();
  const int S = p.num_splits, G = p.group;
  const int mine = split < R ? (R - split + S - 1) / S : 0;
  for (int idx = threadIdx.x; idx < mine * (HEAD_DIM / 2); idx += DTHREADS) {
    const int row = split + S * (idx / (HEAD_DIM / 2)), c = 2 * (idx % (HEAD_DIM / 2));
    float mx = NEG_INF;
    for (int sp = 0; sp < S; ++sp) mx = fmaxf(mx, ld_dsmem(dsmem_addr(cm_lse + row, sp)));
    float sum = 0.f, a0 = 0.f, a1 = 0.f;
    for (int sp = 0; sp < S; ++sp) {
      const float lse = ld_dsmem(dsmem_addr(cm_lse + row, sp));
      const float w = mx == NEG_INF ? 0.f : fast_exp2((lse - mx) * 1.4426950408889634f);
      const float2 x = ld_dsmem2(dsmem_addr(cm_o + row * HEAD_DIM + c, sp));
      sum += w;
      a0 += w * x.x;
      a1 += w * x.y;
    }
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const int tok = (r0 + row) / G, head = kh * G + (r0 + row) % G;
    u16 *dst = p.o + q_offset(p, s, b, tok, head, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
    if (dim_col(c)) *(u32 *)(dst + c) = pack2(a0 * inv, a1 * inv);
    if (p.lse && c == 0) p.lse[(i64)(s.q_start + tok) * p.hq + head] = lse_of(mx, sum);
  }
  cluster_sync();
}

#if PAGED
// Pages of 64 keys or more: a split's block-table entries in registers, spread over the lanes of
// every warp (each warp holds the same): the entry of iteration t's tile lives in lane t % 32 of
// batch t / 32. `cur` holds batch `batch`, `nxt` batch `batch + 1` (the K copies look KSLOTS < 32
// iterations ahead) and `far` batch `batch + 2`, read from global memory 32 iterations before
// anything reads its register, so that no copy waits for a table read: a copy's entry is a warp
// shuffle. (Were `nxt` the register just loaded, the shuffles' select between `cur` and `nxt`
// would wait for that load at every batch.) Why: Nsight Compute at one CTA per SM (run 227)
// showed the wait for each tile's table read before its copies (an L2 round trip behind the
// copies in flight) as the top stall of 64-key pages; with the entries in lanes, 64-key pages
// at one CTA per SM ran 0.997-1.018x the contiguous call, 0.926-0.985x before (run 228).
// 16- and 32-key pages (PAGED_SMALL, a specialisation of its own): a tile has E = 4 or 2 entries,
// slot t * E + q of the lanes' batches, which then last 32 / E iterations, in lanes only for
// 16-row tiles (NT = 2: speculative decoding's row tiles, and one-token calls of GQA 16), where
// each tile's dependent chain is long enough that a table read before the copies lengthened it
// (run 236: 16-key pages +7.4-7.8 % at 32 packed rows, +4.5-6.2 % at 16 rows of one token).
// Tiles of up to 8 rows read their entries where the copies use them (run 228: in lanes they
// were 1-2.5 % slower at three sizes of four); `cur`, `nxt` and `far` unused there.
struct PageEntries {
  const int *bt;
  int page_log2, batch, cur, nxt, far;
};
static_assert(KSLOTS * 4 <= 32, "the K look-ahead must stay within the next batch of entries");
static_assert(DBN == 64, "e_log2 in decode_body takes a tile of 64 keys (log2 6)");
#endif

template <int NT>
DEVI void decode_body(const KernelParams &p, unsigned char *smem) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Grid (KV heads x row tiles, splits, batch): the CTAs that run together read whole K/V rows
  // (all heads of the same keys) rather than one head's slice of many rows (1-2 % at batch 1,
  // measured), and the row tiles of one KV head are neighbours, so that all but the first read
  // its K and V from L2. The plan cuts the packed rows (query tokens x the query heads of a KV
  // head) into row tiles of at most MAXR (8 at d = 256) rows: this CTA's are r0 ... r0 + R - 1.
  const int G = p.group;
  const int row_tiles = (p.max_lq * G + p.block_m - 1) / p.block_m;
  const int kh = blockIdx.x / row_tiles, split = blockIdx.y, b = blockIdx.z + p.batch0;
  const int r0 = (blockIdx.x % row_tiles) * p.block_m;
  const Seq s = load_seq(p, b);
  const int R = min(s.lq * G - r0, p.block_m);
  if (R <= 0) return;  // a shorter sequence of a ragged batch (the whole cluster returns)

  // Shared layout (host: decode90_smem): K buffers | V buffers | red[2][DWARPS][MAXR] |
  // mbarriers kfull[KSLOTS], vfull[VSLOTS].
  const u32 sK = smem_u32(smem);
  const u32 sV = sK + KSLOTS * TILE_SMEM;
  float *red = (float *)(smem + (KSLOTS + VSLOTS) * TILE_SMEM);
  const u32 kfull = smem_u32(red + 2 * DWARPS * MAXR);
  const u32 vfull = kfull + KSLOTS * 8;

  const TileRange tr = decode_split_tiles(p, s, split, DBN);
  const int hi = tr.hi, n = tr.hi - tr.lo;
  // Tile of iteration it: last to first (the plan; first to last measured the same dense time).
#define TILE_OF(it) (hi - 1 - (it))

#if PAGED
  const u16 *kbase = p.k + (i64)kh * p.k_head_stride;
  const u16 *vbase = p.v + (i64)kh * p.v_head_stride;
#else
  const u16 *kbase = p.k + (p.cu_kv ? (i64)s.kv_start * p.k_row_stride : (i64)b * p.k_batch_stride) + (i64)kh * p.k_head_stride;
  const u16 *vbase = p.v + (p.cu_kv ? (i64)s.kv_start * p.v_row_stride : (i64)b * p.v_batch_stride) + (i64)kh * p.v_head_stride;
#endif

  if (threadIdx.x == 0) {
    for (int i = 0; i < KSLOTS + VSLOTS; ++i) mbar_init(kfull + 8 * i, DTHREADS);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const TileLoader LK = make_loader(kbase, p.k_row_stride, p.k_batch_stride);
  const TileLoader LV = make_loader(vbase, p.v_row_stride, p.v_batch_stride);
#if PAGED
  PageEntries PE;
  PE.bt = p.block_table + (i64)b * p.block_table_stride;
  PE.page_log2 = p.page_size_log2;
  PE.batch = 0;
  PE.cur = PE.nxt = PE.far = 0;
  // Entries in lanes (see PageEntries): always for pages of 64 keys or more; for 16- and 32-key
  // pages (E = 4 or 2 entries per tile, slot t * E + q) for 16-row tiles (NT = 2) and, with
  // tiles of up to 8 rows, for splits of 128 tiles or more (run 239, all in lanes: +2.6 % at
  // 16 x 32K, 256 tiles per split; +0.3-0.9 % at 64 x 8K, 128; -1.0-1.7 % at 1 x 128K, 62).
  // Uniform per CTA, so those kernels hold both paths.
  const bool IN_LANES = !PAGED_SMALL || NT == 2 || n >= SMALL_PAGE_LANES_MIN_TILES;
  const int e_log2 = PAGED_SMALL ? 6 - PE.page_log2 : 0;
  // Entry q of iteration t's tile, read from the table (0 past the sequence).
  auto read_entry = [&](int t, int q) -> int {
    const int row = TILE_OF(t) * DBN + (q << PE.page_log2);
    return row < s.lk ? __ldg(PE.bt + (row >> PE.page_log2)) : 0;
  };
  // This lane's entry of batch `batch` (0 past the split's tiles or the sequence).
  auto batch_entry = [&](int batch) -> int {
    const int slot = batch * 32 + lane, t = slot >> e_log2, q = slot & ((1 << e_log2) - 1);
    if (t >= n) return 0;
    return read_entry(t, q);
  };
  if (IN_LANES) {
    PE.cur = batch_entry(0);
    PE.nxt = batch_entry(1);
    PE.far = batch_entry(2);
  }
  // This warp's entry of a tile: its rows' page (make_loader), entry ew of the tile's 4 or 2
  // over 16- or 32-key pages, the tile's one entry over larger pages.
  const int ew = PAGED_SMALL ? (warp * 16) >> PE.page_log2 : 0;
  // The entry of iteration t's tile for this warp: from the current or the next batch
  // (warp-uniform), or (16- and 32-key pages, tiles of up to 8 rows, splits of fewer than
  // SMALL_PAGE_LANES_MIN_TILES tiles) read here (run 228: in lanes, these measured 1-2.5 % slower
  // at three sizes of four; they stay at two CTAs per SM, where the reads' latency is hidden).
  auto tile_entry = [&](int t) -> int {
    if (IN_LANES) {
      const int slot = (t << e_log2) + ew;
      return __shfl_sync(0xffffffffu, (slot >> 5) == PE.batch ? PE.cur : PE.nxt, slot & 31);
    }
    return read_entry(t, ew);
  };
#endif
  // The copies of iteration t's tile with loader L into buffer `dst`, completing on barrier `bar`.
  auto copy_tile = [&](const TileLoader &L, int t, u32 dst, u32 bar) {
#if PAGED
    const int pe = tile_entry(t);
#else
    const int pe = 0;
#endif
    load_tile(p, L, pe, TILE_OF(t) * DBN, s.lk, dst, bar);
  };
  for (int t = 0; t < KSLOTS && t < n; ++t) copy_tile(LK, t, sK + t * TILE_SMEM, kfull + 8 * t);

  // Q^T as the B operand: qb[nt][ks] = rows nt*8 + lane/4, head-dim columns ks*16 + 2 (lane%4) + {0,1} and + 8.
  u32 qb[NT][KSTEPS][2];
  #pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int r = nt * 8 + lane / 4;
    const bool valid = r < R;
    const u16 *q = p.q + (valid ? q_offset(p, s, b, (r0 + r) / G, kh * G + (r0 + r) % G, p.q_batch_stride, p.q_row_stride, p.q_head_stride) : 0);
    #pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
      qb[nt][ks][0] = valid && dim_col(ks * 16) ? *(const u32 *)(q + ks * 16 + 2 * (lane % 4)) : 0u;
      qb[nt][ks][1] = valid && dim_col(ks * 16 + 8) ? *(const u32 *)(q + ks * 16 + 8 + 2 * (lane % 4)) : 0u;
    }
  }

  // This thread's rows: nt*8 + 2 (lane%4) + e.
  float m_run[NT][2], m_acc[NT][2], lw[NT][2];
  float O[NT][KSTEPS][4];  // O^T: head-dim mb*16 + lane/4 (+8), rows as above
  u32 ph[LAG + 1][NT][2];  // P^T B fragments of the last LAG + 1 tiles (index LAG = current)
  float mh[LAG + 1][NT][2];
  #pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    #pragma unroll
    for (int e = 0; e < 2; ++e) m_run[nt][e] = m_acc[nt][e] = NEG_INF, lw[nt][e] = 0.f;
    #pragma unroll
    for (int mb = 0; mb < KSTEPS; ++mb) O[nt][mb][0] = O[nt][mb][1] = O[nt][mb][2] = O[nt][mb][3] = 0.f;
  }
#if SWEEP
  __shared__ u32 scount[32];
  if (threadIdx.x < 32) scount[threadIdx.x] = 0;  // only thread 0 touches it afterwards
  __syncwarp();
#endif
  u32 accepted = 0;  // bit i: the tile of iteration it - LAG + i was kept (uniform)
  u32 vpar = 0;      // bit i: phase parity the next wait on V buffer i expects
  u32 skipped = 0;
  const int kw0 = warp * WKEYS;

  for (int it = 0; it < n + LAG; ++it) {
    bool accept = false;
    if (it < n) {
      const int j = TILE_OF(it);
      const int ks_ = it % KSLOTS;
      const u32 kbuf = sK + ks_ * TILE_SMEM;
#if PAGED
      if (IN_LANES && ((it << e_log2) >> 5) != PE.batch) {  // this tile's entries start the next batch
        PE.cur = PE.nxt;
        PE.nxt = PE.far;
        ++PE.batch;
        PE.far = batch_entry(PE.batch + 2);
      }
#endif
      mbar_wait(kfull + 8 * ks_, (u32)(it / KSLOTS) & 1u);
      // S^T (16 keys of this warp x 8 NT rows), two accumulator chains.
      float S[NT][4], S2[NT][4];
      #pragma unroll
      for (int nt = 0; nt < NT; ++nt)
        #pragma unroll
        for (int i = 0; i < 4; ++i) S[nt][i] = S2[nt][i] = 0.f;
      #pragma unroll
      for (int ks = 0; ks < KSTEPS; ++ks) {
        u32 a[4];
        ldmatrix_x4(a[0], a[1], a[2], a[3], kbuf + swz(kw0 + lane % 16, ks * 2 + lane / 16, CH));
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma16816((ks & 1) ? S2[nt] : S[nt], a, qb[nt][ks][0], qb[nt][ks][1]);
      }
      const int key0 = j * DBN + kw0 + lane / 4;  // keys key0 and key0 + 8
      const bool need_mask = j * DBN + DBN > s.lk || (p.causal && s.lq > 1 && j * DBN + DBN - 1 > s.lk - s.lq);
      float tmax[NT][2];
      #pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        #pragma unroll
        for (int i = 0; i < 4; ++i) S[nt][i] += S2[nt][i];
        #pragma unroll
        for (int e = 0; e < 2; ++e) {
          if (need_mask) {
            const int row = r0 + nt * 8 + 2 * (lane % 4) + e;
            const int lim = p.causal ? row / G + s.lk - s.lq : s.lk - 1;
            if (!(key0 < s.lk && key0 <= lim)) S[nt][e] = NEG_INF;
            if (!(key0 + 8 < s.lk && key0 + 8 <= lim)) S[nt][2 + e] = NEG_INF;
          }
          float mx = fmaxf(S[nt][e], S[nt][2 + e]);
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 4));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 8));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 16));
          tmax[nt][e] = mx;
        }
      }
      float *rb = red + (it & 1) * DWARPS * MAXR;
      if (lane < 4) {
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt) *(float2 *)(rb + warp * MAXR + nt * 8 + 2 * lane) = make_float2(tmax[nt][0], tmax[nt][1]);
      }
      __syncthreads();
      #pragma unroll
      for (int w = 0; w < DWARPS; ++w) {
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const float2 x = *(const float2 *)(rb + w * MAXR + nt * 8 + 2 * (lane % 4));
          tmax[nt][0] = fmaxf(tmax[nt][0], x.x);
          tmax[nt][1] = fmaxf(tmax[nt][1], x.y);
        }
      }
#if SKIP
      bool vote = true;
      #pragma unroll
      for (int nt = 0; nt < NT; ++nt)
        #pragma unroll
        for (int e = 0; e < 2; ++e)
          if (nt * 8 + 2 * (lane % 4) + e < R) vote = vote && row_votes_skip(tmax[nt][e], m_run[nt][e], p);
      // Every warp read the maxima of all rows and holds the same running maxima: a warp-level
      // vote is the CTA-wide decision.
      accept = !__all_sync(0xffffffffu, vote);
#else
      accept = true;
#if SWEEP
      if (warp == 0) {
        u32 mask = 0;
        for (int c = 0; c < p.num_lambdas; ++c) {
          bool v = true;
          #pragma unroll
          for (int nt = 0; nt < NT; ++nt)
            #pragma unroll
            for (int e = 0; e < 2; ++e)
              if (nt * 8 + 2 * (lane % 4) + e < R)
                v = v && row_votes_skip_at(tmax[nt][e], m_run[nt][e], p.scale_log2, p.log2_lambdas[c]);
          mask |= (u32)(__all_sync(0xffffffffu, v) ? 1u : 0u) << c;
        }
        if (lane == 0) sweep_count(scount, mask);
      }
#endif
#endif
      if (!accept) ++skipped;
      // V_j if kept, then K of tile it + KSLOTS into the buffer K_j just freed.
      if (accept) {
        const int vs = it % VSLOTS;
        copy_tile(LV, it, sV + vs * TILE_SMEM, vfull + 8 * vs);
      }
      if (it + KSLOTS < n) copy_tile(LK, it + KSLOTS, kbuf, kfull + 8 * ks_);
      if (accept) {
        // P = exp2((S - m) * scale_log2) with the new running max; the row sums follow the
        // running max (like kernels/decode.cu), O is rescaled when P V runs.
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          float pv[4];
          #pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float mn = fmaxf(m_run[nt][e], tmax[nt][e]);
            const float ms = mn == NEG_INF ? 0.f : mn * p.scale_log2;
            const float al = fast_exp2(m_run[nt][e] * p.scale_log2 - ms);
            pv[e] = fast_exp2(S[nt][e] * p.scale_log2 - ms);
            pv[2 + e] = fast_exp2(S[nt][2 + e] * p.scale_log2 - ms);
            lw[nt][e] = lw[nt][e] * al + (pv[e] + pv[2 + e]);
            m_run[nt][e] = mn;
            mh[LAG][nt][e] = mn;
          }
          ph[LAG][nt][0] = movmatrix_t(pack2(pv[0], pv[1]));
          ph[LAG][nt][1] = movmatrix_t(pack2(pv[2], pv[3]));
        }
      }
    }
    accepted = (accepted >> 1) | ((accept ? 1u : 0u) << LAG);
    // O^T += V^T P^T for the tile of iteration it - LAG (bit 0 of `accepted`).
    const int old = it - LAG;
    if (old >= 0 && (accepted & 1u)) {
      const int vs = old % VSLOTS;
      mbar_wait(vfull + 8 * vs, (vpar >> vs) & 1u);
      vpar ^= 1u << vs;
      const u32 vbuf = sV + vs * TILE_SMEM;
      #pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        #pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float mnew = mh[0][nt][e];
          if (mnew > m_acc[nt][e]) {
            const float al = m_acc[nt][e] == NEG_INF ? 0.f : fast_exp2((m_acc[nt][e] - mnew) * p.scale_log2);
            #pragma unroll
            for (int mb = 0; mb < KSTEPS; ++mb) O[nt][mb][e] *= al, O[nt][mb][2 + e] *= al;
            m_acc[nt][e] = mnew;
          }
        }
      }
      #pragma unroll
      for (int mb = 0; mb < KSTEPS; ++mb) {
        u32 a[4];  // V^T: head-dim rows mb*16 .. +15, this warp's 16 keys
        ldmatrix_x4_trans(a[0], a[1], a[2], a[3], vbuf + swz(kw0 + lane % 8 + 8 * (lane / 16), mb * 2 + (lane / 8) % 2, CH));
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma16816(O[nt][mb], a, ph[0][nt][0], ph[0][nt][1]);
      }
    }
    // Age the probability history by one tile.
    #pragma unroll
    for (int i = 0; i < LAG; ++i)
      #pragma unroll
      for (int nt = 0; nt < NT; ++nt)
        #pragma unroll
        for (int e = 0; e < 2; ++e) ph[i][nt][e] = ph[i + 1][nt][e], mh[i][nt][e] = mh[i + 1][nt][e];
  }

  // Combine the 4 warps: row sums (lanes with equal lane % 4 hold the same rows) and O^T, all
  // at the same scale (every warp followed the same running max). The K buffers are free: every
  // issued copy was waited for.
  __syncthreads();
  float *fo = (float *)smem;                // [DWARPS][MAXR][HEAD_DIM]
  float *fl = fo + DWARPS * MAXR * HEAD_DIM;  // [DWARPS][MAXR]
  float *fm = fl + DWARPS * MAXR;             // [MAXR]
  #pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    #pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int row = nt * 8 + 2 * (lane % 4) + e;
      float l = lw[nt][e];
      l += __shfl_xor_sync(0xffffffffu, l, 4);
      l += __shfl_xor_sync(0xffffffffu, l, 8);
      l += __shfl_xor_sync(0xffffffffu, l, 16);
      if (lane < 4) {
        fl[warp * MAXR + row] = l;
        if (warp == 0) fm[row] = m_run[nt][e];
      }
      #pragma unroll
      for (int mb = 0; mb < KSTEPS; ++mb) {
        fo[(warp * MAXR + row) * HEAD_DIM + mb * 16 + lane / 4] = O[nt][mb][e];
        fo[(warp * MAXR + row) * HEAD_DIM + mb * 16 + 8 + lane / 4] = O[nt][mb][2 + e];
      }
    }
  }
  // Cluster merge: this split's normalised rows and their LSE, read by the cluster's CTAs.
  float *cm_o = fm + MAXR;                // [MAXR][HEAD_DIM]
  float *cm_lse = cm_o + MAXR * HEAD_DIM;  // [MAXR]
  __syncthreads();
  const i64 rows_total = (i64)p.batch * p.max_lq;
  for (int idx = threadIdx.x; idx < R * (HEAD_DIM / 2); idx += DTHREADS) {
    const int row = idx / (HEAD_DIM / 2), c = 2 * (idx % (HEAD_DIM / 2));
    float l = 0.f, o0 = 0.f, o1 = 0.f;
    #pragma unroll
    for (int w = 0; w < DWARPS; ++w) {
      l += fl[w * MAXR + row];
      const float2 x = *(const float2 *)(fo + (w * MAXR + row) * HEAD_DIM + c);
      o0 += x.x;
      o1 += x.y;
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;
    const int tok = (r0 + row) / G, head = kh * G + (r0 + row) % G;
    if (p.cluster_merge) {
      *(float2 *)(cm_o + row * HEAD_DIM + c) = make_float2(o0 * inv, o1 * inv);
      if (c == 0) cm_lse[row] = lse_of(fm[row] * p.scale, l);
    } else if (p.num_splits == 1) {
      u16 *dst = p.o + q_offset(p, s, b, tok, head, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
      if (dim_col(c)) *(u32 *)(dst + c) = pack2(o0 * inv, o1 * inv);
      if (p.lse && c == 0) p.lse[(i64)(s.q_start + tok) * p.hq + head] = lse_of(fm[row] * p.scale, l);
    } else {
      const i64 wrow = ((i64)split * rows_total + (i64)b * p.max_lq + tok) * p.hq + head;
      *(float2 *)(p.ws_o + wrow * HEAD_DIM + c) = make_float2(o0 * inv, o1 * inv);
      if (c == 0) p.ws_lse[wrow] = lse_of(fm[row] * p.scale, l);
    }
  }
  if (p.cluster_merge) cluster_merge_splits(p, s, b, kh, r0, split, R, cm_o, cm_lse);
  flush_stats(p, (u64)n, (u64)skipped);
#if SWEEP
  if (threadIdx.x == 0) sweep_flush(p, scount, (u64)n);
#endif
}
#undef TILE_OF

// (The row-tile warps kernel, kernels/decode_warps_sm90.cu, follows this file with its own entry
// point: DECODE_WARPS.)
#ifndef DECODE_WARPS
// CTAs per SM (DECODE90_CTAS_PER_SM, from the host: src/cuda/nvrtc.rs decode90_ctas_per_sm,
// which the decode plan sizes its splits by): 3 at d = 64, 2 at d = 128, 1 at d = 256, where a
// 32 KB tile leaves one (the six buffers take 192 KB) and the kernel is built for up to 8 packed
// rows only (one 8-row MMA tile: Q^T 32 and O^T 64 registers per thread; with 16 rows ptxas
// needed 255 registers and spilled); the host runs the portable kernel for more.
extern "C" __global__ void __launch_bounds__(DTHREADS, DECODE90_CTAS_PER_SM) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  pdl_wait();
  // The merge kernel that follows may be scheduled now: it waits for this grid to complete.
  pdl_trigger();
#if HEAD_DIM <= 128
  if (p.block_m <= 8) decode_body<1>(p, smem);
  else decode_body<2>(p, smem);
#else
  decode_body<1>(p, smem);
#endif
}
#endif  // DECODE_WARPS
