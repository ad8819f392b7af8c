//! C ABI: attention calls and the LSE merge.
//!
//! The doc comments here are also the C header's (cbindgen copies them): shapes are written
//! in C's `[rows][cols]` notation, which rustdoc would take for links.
#![allow(rustdoc::broken_intra_doc_links)]

use super::{blasst_status, boundary, boundary_void, non_null, slice};
use crate::attn::{self, AttnParams, AttnPlanInfo, DType, Device};
use crate::{Result, invalid};
use std::ffi::c_void;

/// Zeroes `*p` and sets `p->struct_size`. NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_attn_params_init(p: *mut AttnParams) {
    boundary_void(|| {
        if !p.is_null() {
            // SAFETY: the caller passes writable storage for one struct.
            unsafe { p.write(AttnParams::default()) };
        }
    })
}

pub(crate) unsafe fn params<'a>(p: *const AttnParams) -> Result<&'a AttnParams> {
    non_null("params", p)?;
    if !(p as usize).is_multiple_of(std::mem::align_of::<AttnParams>()) {
        return Err(invalid!("params = {p:p} is misaligned"));
    }
    // The struct_size field comes first: read it alone before trusting the rest, so that a
    // caller with a smaller (older or foreign) struct is never read past its end.
    // SAFETY: every version of the struct begins with struct_size.
    let size = unsafe { *(p as *const u32) };
    let expected = std::mem::size_of::<AttnParams>() as u32;
    if size != expected {
        return Err(invalid!(
            "struct_size = {size} is not sizeof(blasst_attn_params) = {expected}: initialise with blasst_attn_params_init"
        ));
    }
    Ok(unsafe { &*p })
}

/// Runs attention. Validates every field first (a failure writes nothing). `cuda_stream` is a
/// cudaStream_t (NULL = legacy default stream) and is ignored on the CPU.
/// Thread-safe: any number of threads may call it at once, on their own streams or one. On the
/// GPU it runs in the calling thread's current context; if none is current, in `cuda_stream`'s
/// context (device 0's primary context for the NULL and default streams), which is then left
/// current. `cuda_stream` must belong to the context the call runs in (otherwise
/// BLASST_ERROR_INVALID_ARGUMENT naming both), and every pointer must be memory of that
/// context's GPU (or managed memory). The
/// first call that needs a kernel variant compiles or loads it (0.2-1.5 s; other threads' calls
/// do not wait for it unless they need the same variant); after cudaDeviceReset, kernels are
/// loaded again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_attn_run(
    p: *const AttnParams,
    cuda_stream: *mut c_void,
) -> blasst_status {
    boundary(|| unsafe { attn::run(params(p)?, cuda_stream) })
}

/// Bytes of workspace the call needs (0 when none); `*bytes` is written on success only. For a
/// CUDA decode call the size is for the current context's GPU (the plan's KV splits fill one
/// wave of its multiprocessors); with no context current, the largest that any GPU of the
/// machine needs, so a size asked before a thread binds to its device serves every GPU (no
/// context is made current). It does not depend on
/// `threshold_scale_factor` (the larger of the dense and the skip plan's needs), so one size per
/// shape serves dense calls, skip calls and the calibration sweep.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_attn_workspace_size(
    p: *const AttnParams,
    bytes: *mut usize,
) -> blasst_status {
    boundary(|| {
        non_null("bytes", bytes)?;
        let n = attn::workspace_size(unsafe { params(p)? })?;
        unsafe { *bytes = n };
        Ok(())
    })
}

/// The plan the call runs with (block sizes, KV order, splits). `out->struct_size` is set. A
/// CUDA decode call's KV splits are made for the current context's GPU (device 0's if none is
/// current; no context is made current; needs the driver:
/// BLASST_ERROR_NO_DEVICE without one); pass the plan to a CPU call (`params.plan`) to
/// reproduce that GPU's skip decisions. A CPU call's default plan is an H100/H200's. A dense
/// call's decode splits can differ from a skip call's of the same shape (on Hopper at d = 128,
/// contiguous: one CTA per multiprocessor instead of two): ask with the call's own factor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_attn_plan(
    p: *const AttnParams,
    out: *mut AttnPlanInfo,
) -> blasst_status {
    boundary(|| {
        non_null("out", out)?;
        let plan = attn::plan(unsafe { params(p)? })?;
        unsafe { out.write(plan) };
        Ok(())
    })
}

/// Merges `num_states` partial attention results of the same rows by their LSE
/// (split-KV, context parallelism): `v_out = sum_s exp(s_s - s_out) * v_s`,
/// `s_out = log sum_s exp(s_s)`. Layouts are contiguous:
/// `v` [num_states][num_rows][num_heads][head_dim] of `dtype`, `s` [num_states][num_rows][num_heads]
/// fp32 natural-log LSE (-inf: empty part), `v_out` [num_rows][num_heads][head_dim] of `dtype`,
/// `s_out` [num_rows][num_heads] or NULL. Rows whose parts are all -inf get zeros and -inf.
/// Device BLASST_DEVICE_CPU runs on host memory (f32, f16, bf16); BLASST_DEVICE_CUDA runs one
/// kernel on `cuda_stream` over device memory (f16, bf16; head_dim a multiple of 8 up to 256;
/// `v`, `s`, `v_out` and `s_out` 4-byte aligned), in the context `blasst_attn_run` would use.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_merge_states(
    device: u32,
    dtype: u32,
    v: *const c_void,
    s: *const f32,
    num_states: u32,
    num_rows: u32,
    num_heads: u32,
    head_dim: u32,
    v_out: *mut c_void,
    s_out: *mut f32,
    cuda_stream: *mut c_void,
) -> blasst_status {
    boundary(|| {
        let device = Device::try_from(device)?;
        let dtype = DType::try_from(dtype)?;
        for (name, x) in [
            ("num_states", num_states),
            ("num_rows", num_rows),
            ("num_heads", num_heads),
            ("head_dim", head_dim),
        ] {
            if x == 0 {
                return Err(invalid!("{name} = 0: must be at least 1"));
            }
        }
        let rows = num_rows as usize * num_heads as usize;
        let n = num_states as usize;
        let d = head_dim as usize;
        let total = rows
            .checked_mul(d)
            .and_then(|x| x.checked_mul(n))
            .filter(|&x| x < (1usize << 40));
        let Some(total) = total else {
            return Err(invalid!(
                "num_states x num_rows x num_heads x head_dim is absurdly large"
            ));
        };
        non_null("v", v)?;
        non_null("s", s)?;
        non_null("v_out", v_out)?;
        if device == Device::Cuda {
            if dtype == DType::F32 {
                return Err(crate::unsupported!(
                    "dtype = 2 (F32) is CPU only; blasst_merge_states on the GPU takes F16 or BF16"
                ));
            }
            return unsafe {
                crate::cuda::merge_states(
                    dtype == DType::BF16,
                    v,
                    s,
                    n,
                    num_rows as usize,
                    num_heads as usize,
                    d,
                    v_out,
                    s_out,
                    cuda_stream,
                )
            };
        }
        let lse = unsafe { slice("s", s, rows * n)? };
        match dtype {
            DType::F32 => unsafe { merge_typed::<f32>(v, lse, n, rows, d, total, v_out, s_out) },
            DType::F16 => unsafe {
                merge_typed::<half::f16>(v, lse, n, rows, d, total, v_out, s_out)
            },
            DType::BF16 => unsafe {
                merge_typed::<half::bf16>(v, lse, n, rows, d, total, v_out, s_out)
            },
        }
    })
}

unsafe fn merge_typed<T: crate::cpu::Elem>(
    v: *const c_void,
    lse: &[f32],
    n: usize,
    rows: usize,
    d: usize,
    total: usize,
    v_out: *mut c_void,
    s_out: *mut f32,
) -> Result<()> {
    let v = unsafe { slice("v", v as *const T, total)? };
    if !(v_out as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(invalid!("v_out = {v_out:p} is misaligned"));
    }
    if !(s_out as usize).is_multiple_of(4) {
        return Err(invalid!("s_out = {s_out:p} is misaligned"));
    }
    let out = unsafe { std::slice::from_raw_parts_mut(v_out as *mut T, rows * d) };
    let parts: Vec<f32> = v.iter().map(|x| x.to_f32()).collect();
    let mut row = vec![0f32; d];
    for r in 0..rows {
        let l = crate::cpu::merge::merge_rows(
            n,
            |st| {
                (
                    &parts[(st * rows + r) * d..(st * rows + r + 1) * d],
                    lse[st * rows + r],
                )
            },
            &mut row,
        );
        for (o, x) in out[r * d..(r + 1) * d].iter_mut().zip(&row) {
            *o = T::from_f32(*x);
        }
        if !s_out.is_null() {
            unsafe { *s_out.add(r) = l };
        }
    }
    Ok(())
}
