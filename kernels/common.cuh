// Shared device helpers of the blasst kernels. No CUDA headers: NVRTC compiles these with
// only its built-in declarations, so the library needs no CUDA toolkit.
//
// The variant is chosen by macros the host passes to NVRTC:
//   BLASST_BF16 or BLASST_FP16   element type of q, k, v, o (P uses the same type)
//   HEAD_DIM                     the kernel's head dim: 64, 128 or 256
//   DIM                          the call's head dim (a multiple of 8, at most HEAD_DIM): a
//                                kernel built for HEAD_DIM runs a smaller head dim with the
//                                columns past DIM zero-filled on loads and left out on stores
//                                (dim_chunk, dim_col); DIM == HEAD_DIM compiles them away
//   SKIP                         0: dense specialisation (no skip code), 1: Skip-Softmax
//   PAGED                        0: contiguous/ragged K/V, 1: paged K/V via block_table
//   SWEEP                        1: dense pass that counts, per candidate lambda, the tiles the
//                                skip test would skip (calibration; SKIP is 0)
//   KERNEL_NAME                  the extern "C" name, e.g. blasst_fwd_prefill_bf16_d128_skip

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define DEVI __device__ __forceinline__
#define NEG_INF (-__int_as_float(0x7f800000) )

// Must match `KernelParams` in src/cuda/launch.rs field by field.
// A CUtensorMap: 128 opaque bytes. TMA needs 64-byte alignment; CUDA 13's header (and cudarc's
// CUtensorMap on the host, src/cuda/mod.rs) align it to 128, and the two layouts must agree.
struct __align__(128) TensorMap {
  u64 w[16];
};

struct KernelParams {
  const u16 *q, *k, *v;
  u16 *o;
  float *lse;
  u64 *stats;
  float *ws_o;
  float *ws_lse;
  i64 q_batch_stride, q_row_stride, q_head_stride;
  i64 k_batch_stride, k_row_stride, k_head_stride;
  i64 v_batch_stride, v_row_stride, v_head_stride;
  i64 o_batch_stride, o_row_stride, o_head_stride;
  const int *cu_q, *cu_kv, *seqused, *block_table;
  i64 block_table_stride;
  int page_size_log2;
  int batch, hq, hkv, group, max_lq, max_lk, causal;
  float scale_log2;   // softmax_scale * log2(e)
  float scale;        // softmax_scale
  float log2_lambda;  // log2(factor / max_seqlen_kv); skip variants only
  int num_splits;
  int block_m;        // decode: packed rows per tile (lq * group)
  // Calibration sweep (SWEEP variants): candidate thresholds and their counters.
  float log2_lambdas[32];
  int num_lambdas;
  int cluster_merge;  // decode90: the splits are one thread-block cluster and merge in it (no ws_*)
  u64 *sweep_skipped;  // [num_lambdas]
  u64 *sweep_visited;  // [1]
  // TMA tensor maps of Q, K and V (prefill90, non-paged layouts; `tma` = 0 when the host could
  // not encode them: the kernel then copies everything with cp.async). Encoded by
  // src/cuda/mod.rs tensor_maps; read from the parameter space (kernels take p __grid_constant__).
  int tma;
  // The first sequence of this launch: a call of more sequences than the grid's z dimension
  // holds (65535) is several launches (src/cuda/mod.rs launch_seqs); b = blockIdx.z + batch0.
  int batch0;
  TensorMap tmap_q, tmap_k, tmap_v;
};

// Programmatic dependent launch (compute capability 9.0+; src/cuda/mod.rs `launch`): a kernel
// may be scheduled while the previous kernel of its stream is still finishing. pdl_wait() blocks
// until that kernel has completed and its writes are visible; every kernel that the host may
// launch this way calls it before its first global memory access. pdl_trigger() lets the next
// kernel of the stream be scheduled now (it still waits in its own pdl_wait()). Both do nothing
// when the launch did not ask for it, and compile to nothing before sm_90.
DEVI void pdl_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
DEVI void pdl_trigger() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// The call's sequence of this CTA (grid z holds at most 65535 of them: src/cuda/mod.rs
// launch_seqs). The d = 256 paged Hopper prefill reads %ctaid.z again at each use (asm
// volatile): held in a register throughout, it spilled there. Everywhere else a plain read, which
// the compiler may keep: the volatile read made the d = 256 TMA producer's loop 29 instructions
// longer and the d = 256 dense kernel 3-15 % slower (bench/runs/session17/run112-ab_d256.log).
DEVI int seq_index(const KernelParams &p) {
#if PAGED && HEAD_DIM == 256
  unsigned z;
  asm volatile("mov.u32 %0, %%ctaid.z;\n" : "=r"(z));
  return (int)z + p.batch0;
#else
  return (int)blockIdx.z + p.batch0;
#endif
}

// One sequence of the batch.
struct Seq {
  int q_start;   // row of its first query in q/o/lse (ragged: cu_q[b]; padded: b * max_lq)
  int lq, lk;
  int kv_start;  // ragged KV: cu_kv[b]
};

DEVI Seq load_seq(const KernelParams &p, int b) {
  Seq s;
  if (p.cu_q) { s.q_start = p.cu_q[b]; s.lq = p.cu_q[b + 1] - s.q_start; }
  else { s.q_start = b * p.max_lq; s.lq = p.max_lq; }
  s.kv_start = p.cu_kv ? p.cu_kv[b] : 0;
  if (p.seqused) s.lk = p.seqused[b];
  else if (p.cu_kv) s.lk = p.cu_kv[b + 1] - s.kv_start;
  else s.lk = p.max_lk;
  return s;
}

// KV tiles of `bn` keys visible to query rows [first, first + rows) of a sequence (prefill):
// the tiles up to the last row's causal limit (all tiles when not causal); 0 past the rows.
DEVI int visible_tiles(const KernelParams &p, const Seq &s, int first, int rows, int bn) {
  if (first >= s.lq) return 0;
  const int last_row = min(s.lq, first + rows) - 1;
  const int limit = p.causal ? min(last_row + s.lk - s.lq, s.lk - 1) : s.lk - 1;
  return limit < 0 ? 0 : min((s.lk + bn - 1) / bn, limit / bn + 1);
}

// Element pointer of query/output row `t` of head `h`.
DEVI i64 q_offset(const KernelParams &p, const Seq &s, int b, int t, int h, i64 bs, i64 rs, i64 hs) {
  return (p.cu_q ? (i64)(s.q_start + t) * rs : (i64)b * bs + (i64)t * rs) + (i64)h * hs;
}

// Element offset of key/value row `pos` of KV head `kh`.
DEVI i64 kv_offset(const KernelParams &p, const Seq &s, int b, int pos, int kh, i64 bs, i64 rs, i64 hs) {
#if PAGED
  int page = p.block_table[(i64)b * p.block_table_stride + (pos >> p.page_size_log2)];
  return (i64)page * bs + (i64)(pos & ((1 << p.page_size_log2) - 1)) * rs + (i64)kh * hs;
#else
  return (p.cu_kv ? (i64)(s.kv_start + pos) * rs : (i64)b * bs + (i64)pos * rs) + (i64)kh * hs;
#endif
}

// The KV tiles [lo, hi) that split `split` of a decode work unit visits (src/attn/plan.rs):
// ceil(T / num_splits) of the sequence's T tiles per split, clipped to the tiles its last query
// token can see (the decode kernels return before this for a sequence without queries).
struct TileRange {
  int lo, hi;
};
DEVI TileRange decode_split_tiles(const KernelParams &p, const Seq &s, int split, int bn) {
  const int total = (s.lk + bn - 1) / bn;
  const int n_vis = visible_tiles(p, s, 0, s.lq, bn);
  const int per = max(1, (total + p.num_splits - 1) / p.num_splits);
  TileRange r;
  r.lo = min(split * per, n_vis);
  r.hi = min((split + 1) * per, n_vis);
  return r;
}

DEVI u32 smem_u32(const void *ptr) { return (u32)__cvta_generic_to_shared(ptr); }

// Padded head dims (src/attn/validate.rs gpu_kernel_dim): the columns DIM .. HEAD_DIM - 1 of
// Q, K and V are zero in shared memory and registers, so they add exactly zero to every score
// and leave zero in O's padded columns, which are never stored. Whether 16-byte chunk `c` of a row (columns
// 8c .. 8c + 7; DIM is a multiple of 8) and column `c` hold data: constant true when DIM ==
// HEAD_DIM, so a kernel at its own head dim compiles exactly as without them.
DEVI bool dim_chunk(int c) { return DIM == HEAD_DIM || c < DIM / 8; }
DEVI bool dim_col(int c) { return DIM == HEAD_DIM || c < DIM; }
// The 16-column steps of the head dim that hold data (ceil(DIM / 16)): a matrix product over
// the head dim (S = Q K^T) stops there, since the steps past it multiply zeros; a 16-column step
// that DIM ends inside (DIM = 40: columns 32 .. 47) still runs, its zero columns adding exactly
// zero. HEAD_DIM / 16 when DIM == HEAD_DIM.
#define DIM16 ((DIM + 15) / 16)

// 16-byte asynchronous copy global -> shared; `valid == false` zero-fills (reads nothing).
DEVI void cp_async16(u32 dst, const void *src, bool valid) {
  int n = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}
DEVI void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> DEVI void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// mbarriers (sm_80+): phase-parity waits; a plain arrive releases this thread's prior writes.
DEVI void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
DEVI bool mbar_try_wait(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok != 0;
}
DEVI void mbar_wait(u32 bar, u32 parity) {
  while (!mbar_try_wait(bar, parity)) {}
}
DEVI void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives on `bar` once all of this thread's prior cp.async copies have landed (the arrival
// counts against the barrier's expected count).
DEVI void cp_async_mbar_arrive(u32 bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// TMA (cp.async.bulk.tensor, sm_90): one thread copies a box of a tensor map (src/cuda/mod.rs
// tensor_maps: 4-d, innermost first: head dim, heads, rows, batch; boxes of 64 columns,
// 128-byte swizzle) into shared memory; the bytes complete on `bar`, which expects them through
// mbar_expect_tx.
DEVI void tma_load_4d(u32 dst, const TensorMap &map, int c0, int c1, int c2, int c3, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
      ::"r"(dst), "l"((u64)&map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory");
}
// Arrives on `bar` and adds `bytes` to the bytes its phase waits for.
DEVI void mbar_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
#endif

DEVI void ldmatrix_x4(u32 &r0, u32 &r1, u32 &r2, u32 &r3, u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}
DEVI void ldmatrix_x4_trans(u32 &r0, u32 &r1, u32 &r2, u32 &r3, u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}

// D = A(16x16, row) * B(16x8, col) + D, fp32 accumulation.
DEVI void mma16816(float *d, const u32 *a, u32 b0, u32 b1) {
#if defined(BLASST_BF16)
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
#endif
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two floats -> packed pair of the element type (lo in the low half).
DEVI u32 pack2(float lo, float hi) {
  u32 r;
#if defined(BLASST_BF16)
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#else
  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

DEVI float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Natural-log LSE of a row from its running maximum in log units (`base`, e.g. m * scale) and
// its denominator `sum`: -inf for a row that accumulated nothing (fully masked or empty).
DEVI float lse_of(float base, float sum) { return sum > 0.f ? base + logf(sum) : NEG_INF; }

// Byte offset of 16-byte chunk `chunk` of row `row` in a row-major tile with `chunks` chunks
// per row, XOR-swizzled so that the 8 rows an ldmatrix reads hit 8 different bank groups.
DEVI u32 swz(int row, int chunk, int chunks) {
  return (u32)(row * chunks + (chunk ^ (row & 7))) * 16u;
}

DEVI float warp_quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
  return x;
}
DEVI float warp_quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  x += __shfl_xor_sync(0xffffffffu, x, 2);
  return x;
}

// The Skip-Softmax vote of one row (SPEC section 1): fully masked rows always vote to skip;
// rows with nothing accumulated (m = -inf) never do; otherwise skip when the tile's best score
// is below the running max by more than -ln(lambda). Scores are raw q.k (unscaled).
// Branch-free: a fully masked tile (max -inf) is skipped; with no running max yet (m_run -inf,
// tile_max finite) the difference is +inf and the row keeps the tile (scale_log2 > 0).
DEVI bool row_votes_skip_at(float tile_max, float m_run, float scale_log2, float log2_lambda) {
  return (tile_max == NEG_INF) | ((tile_max - m_run) * scale_log2 < log2_lambda);
}
DEVI bool row_votes_skip(float tile_max, float m_run, const KernelParams &p) {
  return row_votes_skip_at(tile_max, m_run, p.scale_log2, p.log2_lambda);
}
// Whether both of this lane's rows vote to skip a tile (maxima x0, x1; running maxima m0, m1):
// the two rows a thread holds in the mma/wgmma accumulator layout (kernels/prefill.cu,
// kernels/prefill_sm90.cu).
DEVI bool rows_vote_skip(float x0, float m0, float x1, float m1, const KernelParams &p) {
  return row_votes_skip(x0, m0, p) && row_votes_skip(x1, m1, p);
}
// The sweep's decisions for a 16-row tile held by one warp (each thread: two rows, maxima x0,
// x1, running maxima m0, m1): bit c is set when every row would skip at candidate c.
DEVI u32 warp_sweep_mask(const KernelParams &p, float x0, float m0, float x1, float m1) {
  u32 mask = 0;
  for (int c = 0; c < p.num_lambdas; ++c) {
    const bool v = row_votes_skip_at(x0, m0, p.scale_log2, p.log2_lambdas[c]) &&
                   row_votes_skip_at(x1, m1, p.scale_log2, p.log2_lambdas[c]);
    mask |= (u32)(__all_sync(0xffffffffu, v) ? 1u : 0u) << c;
  }
  return mask;
}

// Calibration sweep bookkeeping: thread 0 of a CTA adds the candidates set in `mask` (bit c:
// every row votes to skip under candidate c) to its shared counters, flushed at the end.
DEVI void sweep_count(u32 *cnt, u32 mask) {
  while (mask) {
    const int c = __ffs(mask) - 1;
    cnt[c] += 1;
    mask &= mask - 1;
  }
}
// Thread 0 of a CTA adds the CTA's visited and skipped tiles to `skip_stats`.
DEVI void flush_stats(const KernelParams &p, u64 visited, u64 skipped) {
  if (p.stats && threadIdx.x == 0) {
    atomicAdd(p.stats, visited);
    atomicAdd(p.stats + 1, skipped);
  }
}

// Prefill epilogue of one accumulator row held by a quad of lanes in the mma/wgmma layout
// (this thread's columns dt * 8 + 2 (lane % 4) + {0, 1}, values acc[dt * 4 + {0, 1}]):
// normalises by the row sum `l` (quad-reduced here), writes O and the natural-log LSE. Rows
// past the sequence write nothing; fully masked rows get 0 and -inf.
DEVI void store_prefill_row(const KernelParams &p, const Seq &s, int b, int h, int row, const float *acc, float l,
                            float m) {
  const int lane = threadIdx.x % 32;
  const float lt = warp_quad_sum(l);
  if (row >= s.lq) return;
  const float inv = lt > 0.f ? 1.f / lt : 0.f;
  u16 *dst = p.o + q_offset(p, s, b, row, h, p.o_batch_stride, p.o_row_stride, p.o_head_stride);
  #pragma unroll
  for (int dt = 0; dt < HEAD_DIM / 8; ++dt)
    if (dim_col(dt * 8)) *(u32 *)(dst + dt * 8 + 2 * (lane % 4)) = pack2(acc[dt * 4] * inv, acc[dt * 4 + 1] * inv);
  if (p.lse && lane % 4 == 0) p.lse[(i64)(s.q_start + row) * p.hq + h] = lse_of(m * p.scale, lt);
}

DEVI void sweep_flush(const KernelParams &p, const u32 *cnt, u64 visited) {
  for (int c = 0; c < p.num_lambdas; ++c)
    if (cnt[c]) atomicAdd(p.sweep_skipped + c, (u64)cnt[c]);
  atomicAdd(p.sweep_visited, visited);
}

// The per-warp sweep counters for flush_cta_counts: `rows` in the SWEEP specialisation (the
// only one that declares them), none otherwise.
#if SWEEP
#define SWEEP_ROWS(rows) (rows)
#else
#define SWEEP_ROWS(rows) nullptr
#endif
// The end of a prefill CTA: lane 0 of every counting warp adds the warp's visited and skipped
// tiles to the CTA's shared `counts` (zeroed before a barrier earlier); after `sync()`, a
// barrier of all counting threads, thread 0 flushes them, and (SWEEP) the sum of the `nwarps`
// per-warp sweep rows, with one atomic per counter per CTA (an atomic per warp on the same
// global words cost ~5 % of a 4K prefill).
template <class Sync>
DEVI void flush_cta_counts(const KernelParams &p, u32 *counts, u32 visited, u32 skipped, u32 (*scount)[32], int nwarps,
                           Sync sync) {
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&counts[0], visited);
    atomicAdd(&counts[1], skipped);
  }
  sync();
  if (threadIdx.x == 0) {
    flush_stats(p, (u64)counts[0], (u64)counts[1]);
#if SWEEP
    for (int c = 0; c < p.num_lambdas; ++c)
      for (int w = 1; w < nwarps; ++w) scount[0][c] += scount[w][c];
    sweep_flush(p, scount[0], (u64)counts[0]);
#else
    (void)scount, (void)nwarps;
#endif
  }
}
