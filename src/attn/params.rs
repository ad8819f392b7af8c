//! The call description shared by the Rust API and the C ABI (`blasst_attn_params`,
//! `blasst_attn_plan_info`). Field order is the contract of SPEC section 3; fields may only
//! be added at the end.
//!
//! The doc comments here are also the C header's (cbindgen copies them): shapes are written
//! in C's `[rows][cols]` notation, which rustdoc would take for links.
#![allow(rustdoc::broken_intra_doc_links)]

use std::ffi::c_void;

/// Where every pointer of a call lives (`BLASST_DEVICE_*`).
pub const BLASST_DEVICE_CUDA: u32 = 0;
pub const BLASST_DEVICE_CPU: u32 = 1;
/// Element type of q, k, v and o (`BLASST_DTYPE_*`); F32 is CPU only.
pub const BLASST_DTYPE_F16: u32 = 0;
pub const BLASST_DTYPE_BF16: u32 = 1;
pub const BLASST_DTYPE_F32: u32 = 2;
/// Kernel family (`BLASST_PHASE_*`).
pub const BLASST_PHASE_PREFILL: u32 = 0;
pub const BLASST_PHASE_DECODE: u32 = 1;

/// The tiling a call runs with. Which tiles are skipped depends on it, so the library
/// reports it (`blasst_attn_plan`) and the CPU backend can reproduce any plan.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttnPlanInfo {
    /// = sizeof(blasst_attn_plan_info).
    pub struct_size: u32,
    /// BLASST_PHASE_*: which kernel family runs.
    pub phase: u32,
    /// Query rows per tile. Prefill: consecutive query tokens of one query head. Decode: the
    /// packed rows (token-major, then the query heads sharing one KV head).
    pub block_m: u32,
    /// Keys per tile; tiles start at key 0, block_n * j.
    pub block_n: u32,
    /// Work units per (sequence, row tile) along KV: the KV tiles of a sequence are divided
    /// into this many contiguous ranges of ceil(tiles / splits) tiles, each with its own
    /// running maximum; partial results are merged by LSE.
    pub num_kv_splits: u32,
    /// 1: a work unit visits its KV tiles last to first.
    pub reverse_kv: u32,
}

impl Default for AttnPlanInfo {
    fn default() -> Self {
        AttnPlanInfo {
            struct_size: std::mem::size_of::<AttnPlanInfo>() as u32,
            phase: BLASST_PHASE_PREFILL,
            block_m: 0,
            block_n: 0,
            num_kv_splits: 0,
            reverse_kv: 0,
        }
    }
}

/// One attention call. Initialise with `blasst_attn_params_init` (C) or
/// `AttnParams::default()` (Rust): that zeroes every field and sets `struct_size`.
/// Strides are in elements; the head dimension is contiguous.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AttnParams {
    /// = sizeof(blasst_attn_params).
    pub struct_size: u32,
    /// BLASST_DEVICE_*: where every pointer lives.
    pub device: u32,
    /// BLASST_DTYPE_* of q, k, v, o.
    pub dtype: u32,
    pub batch_size: u32,
    pub num_q_heads: u32,
    /// Divides num_q_heads (MHA: equal, GQA: a divisor, MQA: 1).
    pub num_kv_heads: u32,
    /// Up to 512 on the CPU; on the GPU a multiple of 8 up to 256 (64, 128 and 256 have kernels
    /// of their own, another head dim runs on the next of them with zero-padded columns).
    pub head_dim: u32,
    /// Largest query length of the batch (padded layout: every sequence's length).
    pub max_seqlen_q: u32,
    /// Largest KV length of the batch; also the L in lambda = factor / L.
    pub max_seqlen_kv: u32,
    /// 0 or 1; causal is bottom-right aligned (query i sees keys j <= i + Lk - Lq).
    pub causal: u32,
    /// Scale of q.k; 0 = 1/sqrt(head_dim).
    pub softmax_scale: f32,
    /// 0 = dense (bit-identical to the dense kernel); lambda = factor / max_seqlen_kv.
    pub threshold_scale_factor: f32,
    pub q: *const c_void,
    pub q_batch_stride: i64,
    pub q_row_stride: i64,
    pub q_head_stride: i64,
    /// Contiguous or ragged: [batch, seq, kv_heads, dim] by strides. Paged: the page pool
    /// [num_pages][page_size][kv_heads][dim] and k_batch_stride is the page stride.
    pub k: *const c_void,
    pub k_batch_stride: i64,
    pub k_row_stride: i64,
    pub k_head_stride: i64,
    pub v: *const c_void,
    pub v_batch_stride: i64,
    pub v_row_stride: i64,
    pub v_head_stride: i64,
    /// The output, with q's row layout. It may be q itself (the same pointer and strides: the
    /// output overwrites the queries); any other overlap with q, k or v is undefined.
    pub o: *mut c_void,
    pub o_batch_stride: i64,
    pub o_row_stride: i64,
    pub o_head_stride: i64,
    /// [batch_size + 1] int32, non-decreasing, or NULL: ragged q (batch strides ignored).
    /// This array, cu_seqlens_kv, seqused_kv and block_table live on the call's device. The
    /// CPU backend checks their values (monotone, lengths within max_seqlen_q/_kv and the
    /// cache, page indices >= 0 and < num_pages when set); the GPU kernels trust them, so
    /// values outside those ranges make a GPU call read or write out of bounds.
    pub cu_seqlens_q: *const i32,
    /// [batch_size + 1] int32, non-decreasing, or NULL: ragged kv. Not with block_table.
    pub cu_seqlens_kv: *const i32,
    /// [batch_size] int32 or NULL: KV length actually used per sequence.
    pub seqused_kv: *const i32,
    /// [batch_size][block_table_stride] int32 page indices, or NULL: paged KV cache.
    pub block_table: *const i32,
    pub block_table_stride: i64,
    /// Keys per page (GPU: a power of two >= 16; CPU: any value >= 1).
    pub page_size: u32,
    /// [q rows][num_q_heads] fp32 natural-log LSE, or NULL. Fully masked rows get -inf.
    pub lse: *mut f32,
    /// [2] = {tiles visited, tiles skipped}, added to (atomically), or NULL.
    pub skip_stats: *mut u64,
    /// Device scratch for split-KV partial results, 16-byte aligned, or NULL (then stream-ordered
    /// allocation).
    pub workspace: *mut c_void,
    pub workspace_size: usize,
    /// CPU only: reproduce this plan; NULL = the default plan of the call.
    pub plan: *const AttnPlanInfo,
    /// Added field: number of pages in the K/V pools, so block-table entries can be checked
    /// (0 = unknown: only negative entries are rejected).
    pub num_pages: u32,
}

impl Default for AttnParams {
    fn default() -> Self {
        // SAFETY: every field is an integer, float or raw pointer, for which all-zero is valid.
        let mut p: AttnParams = unsafe { std::mem::zeroed() };
        p.struct_size = std::mem::size_of::<AttnParams>() as u32;
        p
    }
}
