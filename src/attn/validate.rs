//! Checks of a whole `AttnParams` before anything runs (SPEC section 9). Values on the host
//! side only: arrays behind `cu_seqlens_*`, `seqused_kv` and `block_table` live on the call's
//! device and are checked by the CPU backend when it reads them; the GPU path documents that
//! it trusts them.

use super::{AttnParams, AttnPlanInfo, DType, Device};
use crate::cuda::GpuShape;
use crate::{Result, invalid, unsupported};

/// Largest sizes accepted; anything larger is a corrupted field, not a workload.
const MAX_BATCH: u32 = 1 << 20;
const MAX_HEADS: u32 = 4096;
const MAX_SEQLEN: u32 = i32::MAX as u32;
const MAX_HEAD_DIM_CPU: u32 = 512;
/// The head dims the GPU kernels are built for.
pub const GPU_HEAD_DIMS: [u32; 3] = [64, 128, 256];

/// `GPU_HEAD_DIMS` as the error messages list them: "64, 128, 256".
pub fn gpu_head_dims_text() -> String {
    GPU_HEAD_DIMS.map(|d| d.to_string()).join(", ")
}

/// The GPU kernel's head dim that runs a call of head dim `d`: the smallest of `GPU_HEAD_DIMS`
/// that holds it. A smaller multiple of 8 (e.g. 40, 80, 96, 160) runs on that kernel with the
/// columns past `d` zero-filled as they are loaded and never stored (kernels/common.cuh
/// `dim_chunk`): zeros add exactly nothing to a score, so the scores, decisions and outputs are
/// those of head dim `d`, at the arithmetic of the larger kernel (d = 96 does the tensor-core work
/// of 128) but the memory traffic of `d` (the zero-filled chunks are not read). `None`: not a
/// multiple of 8 (a row of 16-byte chunks is the unit of every GPU copy) or above 256: CPU only.
pub fn gpu_kernel_dim(d: usize) -> Option<usize> {
    if !d.is_multiple_of(8) {
        return None;
    }
    GPU_HEAD_DIMS.iter().map(|&k| k as usize).find(|&k| d <= k)
}

/// `gpu_kernel_dim`, or the error of every GPU entry point (a call, `blasst_merge_states`,
/// `blasst precompile --head-dims`) for a head dim the GPU does not run.
pub fn require_gpu_head_dim(d: usize) -> Result<usize> {
    gpu_kernel_dim(d).ok_or_else(|| {
        unsupported!(
            "head_dim = {d} is not supported on the GPU (supported: multiples of 8 up to 256; the kernels are built for {} and run smaller head dims with zero-padded columns)",
            gpu_head_dims_text()
        )
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paged {
    pub page_size: usize,
    pub table_stride: usize,
    /// 0 = unknown.
    pub num_pages: usize,
}

/// The validated scalar description of a call.
#[derive(Debug, Clone)]
pub struct Desc {
    pub device: Device,
    pub dtype: DType,
    pub batch: usize,
    pub hq: usize,
    pub hkv: usize,
    pub group: usize,
    pub head_dim: usize,
    pub max_lq: usize,
    pub max_lk: usize,
    pub causal: bool,
    pub scale: f32,
    pub factor: f32,
    pub ragged_q: bool,
    pub ragged_kv: bool,
    pub paged: Option<Paged>,
    /// The GPU the decode plan is made for: the current context's for a CUDA decode call (the
    /// driver is asked), an H100/H200 otherwise (`GpuShape::nominal()`; see `plan`).
    pub gpu: GpuShape,
    pub plan: AttnPlanInfo,
}

impl Desc {
    /// The head dim of the GPU kernel that runs this call (`gpu_kernel_dim`; `head_dim` itself
    /// for the CPU-only head dims): what sizes the kernels, their shared memory and the decode
    /// plan, so that the CPU backend's plan for a head dim is the GPU's.
    pub fn kernel_dim(&self) -> usize {
        gpu_kernel_dim(self.head_dim).unwrap_or(self.head_dim)
    }
}

fn check_size(name: &str, v: u32, max: u32) -> Result<usize> {
    if v == 0 {
        return Err(invalid!("{name} = 0: must be at least 1"));
    }
    if v > max {
        return Err(invalid!(
            "{name} = {v} is larger than the supported maximum {max}"
        ));
    }
    Ok(v as usize)
}

/// `name = 0x... is not aligned to N bytes` unless `ptr` is a multiple of `align` (every entry
/// point's pointer-alignment check).
pub(crate) fn check_ptr_aligned(name: &str, ptr: usize, align: usize) -> Result<()> {
    if !ptr.is_multiple_of(align) {
        return Err(invalid!(
            "{name} = {ptr:#x} is not aligned to {align} bytes"
        ));
    }
    Ok(())
}

/// A tensor of `dims` = [(count, stride)] blocks of `inner` contiguous elements: strides are
/// non-negative and, for the output, no two elements alias.
fn check_strides(
    name: &str,
    dims: &[(&str, usize, i64)],
    inner: usize,
    no_alias: bool,
) -> Result<()> {
    for (field, _, s) in dims {
        if *s < 0 {
            return Err(invalid!("{name}_{field} = {s} is negative"));
        }
    }
    if no_alias {
        let mut ds: Vec<_> = dims.iter().filter(|(_, n, _)| *n > 1).collect();
        ds.sort_by_key(|(_, _, s)| *s);
        let mut extent = inner as i128;
        for (field, n, s) in ds {
            if (*s as i128) < extent {
                return Err(invalid!(
                    "{name}_{field} = {s} makes output elements overlap (needs at least {extent})"
                ));
            }
            extent += *s as i128 * (*n as i128 - 1);
        }
    }
    // The largest offset must fit in an isize so that pointer arithmetic stays defined.
    let mut max_off: i128 = inner as i128;
    for (_, n, s) in dims {
        max_off += (*s as i128) * (*n as i128).saturating_sub(1);
    }
    if max_off > (isize::MAX as i128) / 8 {
        return Err(invalid!(
            "{name} strides address {max_off} elements: absurdly large"
        ));
    }
    Ok(())
}

/// Validates every field that can be checked without reading device memory and resolves the
/// plan. Nothing is written. A CUDA decode plan is made for the current context's GPU (device
/// 0's when none is current).
pub fn validate(p: &AttnParams) -> Result<Desc> {
    // SAFETY: the NULL stream is never looked up.
    unsafe { validate_on(p, std::ptr::null_mut()) }
}

/// As `validate`, for a call on `cuda_stream`: a CUDA decode plan is made for the GPU the call
/// runs on (`cuda::gpu_shape_on`: with no context current, the stream's).
///
/// # Safety
/// `cuda_stream` is NULL, a default-stream handle or a live stream (CUDA calls only).
pub unsafe fn validate_on(p: &AttnParams, cuda_stream: *mut std::ffi::c_void) -> Result<Desc> {
    let expected = std::mem::size_of::<AttnParams>() as u32;
    if p.struct_size != expected {
        return Err(invalid!(
            "struct_size = {} is not sizeof(blasst_attn_params) = {expected}: initialise with blasst_attn_params_init",
            p.struct_size
        ));
    }
    let device = Device::try_from(p.device)?;
    let dtype = DType::try_from(p.dtype)?;
    if device == Device::Cuda && dtype == DType::F32 {
        return Err(unsupported!(
            "dtype = 2 (F32) is CPU only; the GPU kernels take F16 or BF16"
        ));
    }
    let batch = check_size("batch_size", p.batch_size, MAX_BATCH)?;
    let hq = check_size("num_q_heads", p.num_q_heads, MAX_HEADS)?;
    let hkv = check_size("num_kv_heads", p.num_kv_heads, MAX_HEADS)?;
    if hq % hkv != 0 {
        return Err(invalid!(
            "num_q_heads = {hq} is not a multiple of num_kv_heads = {hkv}"
        ));
    }
    let head_dim = check_size("head_dim", p.head_dim, MAX_HEAD_DIM_CPU)?;
    if device == Device::Cuda {
        require_gpu_head_dim(head_dim)?;
    }
    let max_lq = check_size("max_seqlen_q", p.max_seqlen_q, MAX_SEQLEN)?;
    let max_lk = check_size("max_seqlen_kv", p.max_seqlen_kv, MAX_SEQLEN)?;
    if p.causal > 1 {
        return Err(invalid!("causal = {} must be 0 or 1", p.causal));
    }
    let scale = match p.softmax_scale {
        s if s.is_nan() || s.is_infinite() || s < 0.0 => {
            return Err(invalid!(
                "softmax_scale = {s} must be finite and >= 0 (0 = 1/sqrt(head_dim))"
            ));
        }
        0.0 => 1.0 / (head_dim as f32).sqrt(),
        s => s,
    };
    let factor = p.threshold_scale_factor;
    if !factor.is_finite() || factor < 0.0 {
        return Err(invalid!(
            "threshold_scale_factor = {factor} must be finite and >= 0 (0 = dense)"
        ));
    }

    let esize = dtype.size();
    let align = if device == Device::Cuda { 16 } else { esize };
    for (name, ptr) in [
        ("q", p.q as usize),
        ("k", p.k as usize),
        ("v", p.v as usize),
        ("o", p.o as usize),
    ] {
        if ptr == 0 {
            return Err(invalid!("{name} is NULL"));
        }
        check_ptr_aligned(name, ptr, align)?;
    }
    if device == Device::Cuda {
        // 16-byte vector loads of every row need strides in multiples of 8 elements.
        for (name, s) in [
            ("q_batch_stride", p.q_batch_stride),
            ("q_row_stride", p.q_row_stride),
            ("q_head_stride", p.q_head_stride),
            ("k_batch_stride", p.k_batch_stride),
            ("k_row_stride", p.k_row_stride),
            ("k_head_stride", p.k_head_stride),
            ("v_batch_stride", p.v_batch_stride),
            ("v_row_stride", p.v_row_stride),
            ("v_head_stride", p.v_head_stride),
            ("o_batch_stride", p.o_batch_stride),
            ("o_row_stride", p.o_row_stride),
            ("o_head_stride", p.o_head_stride),
        ] {
            if s % 8 != 0 {
                return Err(invalid!(
                    "{name} = {s} must be a multiple of 8 elements on the GPU"
                ));
            }
        }
    }

    let ragged_q = !p.cu_seqlens_q.is_null();
    let ragged_kv = !p.cu_seqlens_kv.is_null();
    let paged = if !p.block_table.is_null() {
        if ragged_kv {
            return Err(invalid!(
                "cu_seqlens_kv is set together with block_table: a paged cache takes seqused_kv for its lengths"
            ));
        }
        if p.page_size == 0 {
            return Err(invalid!(
                "page_size = 0 with block_table set: paged fields half set"
            ));
        }
        if device == Device::Cuda && (p.page_size < 16 || !p.page_size.is_power_of_two()) {
            return Err(unsupported!(
                "page_size = {} on the GPU must be a power of two >= 16",
                p.page_size
            ));
        }
        if p.block_table_stride <= 0 {
            return Err(invalid!(
                "block_table_stride = {} must be >= 1 with block_table set",
                p.block_table_stride
            ));
        }
        let pages_needed = max_lk.div_ceil(p.page_size as usize);
        if (p.block_table_stride as u64) < pages_needed as u64 && p.seqused_kv.is_null() {
            return Err(invalid!(
                "block_table_stride = {} pages of {} keys cannot hold max_seqlen_kv = {max_lk}",
                p.block_table_stride,
                p.page_size
            ));
        }
        check_ptr_aligned("block_table", p.block_table as usize, 4)?;
        Some(Paged {
            page_size: p.page_size as usize,
            table_stride: p.block_table_stride as usize,
            num_pages: p.num_pages as usize,
        })
    } else {
        if p.page_size != 0 || p.block_table_stride != 0 || p.num_pages != 0 {
            return Err(invalid!(
                "page_size = {}, block_table_stride = {}, num_pages = {} set without block_table: paged fields half set",
                p.page_size,
                p.block_table_stride,
                p.num_pages
            ));
        }
        None
    };
    for (name, ptr) in [
        ("cu_seqlens_q", p.cu_seqlens_q as usize),
        ("cu_seqlens_kv", p.cu_seqlens_kv as usize),
        ("seqused_kv", p.seqused_kv as usize),
        ("lse", p.lse as usize),
    ] {
        check_ptr_aligned(name, ptr, 4)?;
    }
    check_ptr_aligned("skip_stats", p.skip_stats as usize, 8)?;
    if device == Device::Cuda {
        // The decode kernels store split partials as float2: a misaligned workspace would fault
        // in the kernel (a sticky error that ends the host's context), so it is refused here.
        // 16 bytes, as for q, k, v and o, leaves room for 16-byte accesses; every cudaMalloc'd
        // pointer qualifies.
        check_ptr_aligned("workspace", p.workspace as usize, 16)?;
    }
    if p.workspace.is_null() && p.workspace_size != 0 {
        return Err(invalid!(
            "workspace_size = {} with workspace = NULL",
            p.workspace_size
        ));
    }

    // Strides. Ragged tensors ignore their batch stride; a paged K/V's batch stride is the
    // page stride.
    let rows_q = if ragged_q { 2 } else { max_lq };
    let bq = if ragged_q { 1 } else { batch };
    check_strides(
        "q",
        &[
            ("batch_stride", bq, p.q_batch_stride),
            ("row_stride", rows_q, p.q_row_stride),
            ("head_stride", hq, p.q_head_stride),
        ],
        head_dim,
        false,
    )?;
    check_strides(
        "o",
        &[
            ("batch_stride", bq, p.o_batch_stride),
            ("row_stride", rows_q, p.o_row_stride),
            ("head_stride", hq, p.o_head_stride),
        ],
        head_dim,
        true,
    )?;
    let (bk, rows_k) = match (&paged, ragged_kv) {
        (Some(pg), _) => (pg.num_pages.max(1), pg.page_size),
        (None, true) => (1, max_lk),
        (None, false) => (batch, max_lk),
    };
    for (name, bs, rs, hs) in [
        ("k", p.k_batch_stride, p.k_row_stride, p.k_head_stride),
        ("v", p.v_batch_stride, p.v_row_stride, p.v_head_stride),
    ] {
        check_strides(
            name,
            &[
                ("batch_stride", bk, bs),
                ("row_stride", rows_k, rs),
                ("head_stride", hkv, hs),
            ],
            head_dim,
            false,
        )?;
    }

    let mut desc = Desc {
        device,
        dtype,
        batch,
        hq,
        hkv,
        group: hq / hkv,
        head_dim,
        max_lq,
        max_lk,
        causal: p.causal == 1,
        scale,
        factor,
        ragged_q,
        ragged_kv,
        paged,
        gpu: GpuShape::nominal(),
        plan: AttnPlanInfo::default(),
    };
    if device == Device::Cuda && super::plan::is_decode(max_lq, desc.group) {
        desc.gpu = unsafe { crate::cuda::gpu_shape_on(cuda_stream)? };
    }
    desc.plan = super::effective_plan(p, &desc)?;
    Ok(desc)
}

#[cfg(test)]
mod tests {
    #[test]
    fn gpu_head_dims_are_listed_as_the_messages_say() {
        assert_eq!(super::gpu_head_dims_text(), "64, 128, 256");
    }

    /// A head dim runs on the smallest kernel that holds it; only multiples of 8 up to 256 run
    /// on the GPU.
    #[test]
    fn head_dims_run_on_the_smallest_kernel_that_holds_them() {
        use super::gpu_kernel_dim as k;
        for (d, want) in [
            (8, Some(64)),
            (40, Some(64)),
            (64, Some(64)),
            (72, Some(128)),
            (80, Some(128)),
            (96, Some(128)),
            (128, Some(128)),
            (136, Some(256)),
            (160, Some(256)),
            (256, Some(256)),
            (100, None),
            (4, None),
            (264, None),
            (512, None),
        ] {
            assert_eq!(k(d), want, "head dim {d}");
        }
    }
}
