//! Attention calls: parameters, validation, the plan, and dispatch to a backend.

mod params;
pub mod plan;
mod validate;

pub use params::*;
#[cfg(test)]
pub(crate) use plan::test_desc;
pub use plan::{default_plan, effective_plan};
pub(crate) use validate::check_ptr_aligned;
pub use validate::{
    Desc, GPU_HEAD_DIMS, Paged, gpu_head_dims_text, gpu_kernel_dim, require_gpu_head_dim, validate,
    validate_on,
};

use crate::{Error, Result, invalid};
use std::ffi::c_void;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Cuda,
    Cpu,
}

impl TryFrom<u32> for Device {
    type Error = Error;
    fn try_from(v: u32) -> Result<Self> {
        match v {
            BLASST_DEVICE_CUDA => Ok(Device::Cuda),
            BLASST_DEVICE_CPU => Ok(Device::Cpu),
            _ => Err(invalid!(
                "device = {v} is not a BLASST_DEVICE_* value (0 = CUDA, 1 = CPU)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    F16,
    BF16,
    F32,
}

impl DType {
    pub fn size(self) -> usize {
        match self {
            DType::F16 | DType::BF16 => 2,
            DType::F32 => 4,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
        }
    }
}

impl TryFrom<u32> for DType {
    type Error = Error;
    fn try_from(v: u32) -> Result<Self> {
        match v {
            BLASST_DTYPE_F16 => Ok(DType::F16),
            BLASST_DTYPE_BF16 => Ok(DType::BF16),
            BLASST_DTYPE_F32 => Ok(DType::F32),
            _ => Err(invalid!(
                "dtype = {v} is not a BLASST_DTYPE_* value (0 = F16, 1 = BF16, 2 = F32)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Prefill,
    Decode,
}

impl TryFrom<u32> for Phase {
    type Error = Error;
    fn try_from(v: u32) -> Result<Self> {
        match v {
            BLASST_PHASE_PREFILL => Ok(Phase::Prefill),
            BLASST_PHASE_DECODE => Ok(Phase::Decode),
            _ => Err(invalid!(
                "phase = {v} is not a BLASST_PHASE_* value (0 = PREFILL, 1 = DECODE)"
            )),
        }
    }
}

impl Phase {
    pub fn as_u32(self) -> u32 {
        match self {
            Phase::Prefill => BLASST_PHASE_PREFILL,
            Phase::Decode => BLASST_PHASE_DECODE,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Phase::Prefill => "prefill",
            Phase::Decode => "decode",
        }
    }
}

/// Runs one attention call on the device named by `p.device`.
///
/// # Safety
/// Every non-null pointer in `p` must point to memory of the size its fields describe, on
/// the device `p.device` names; `cuda_stream` is NULL, a default-stream handle or a live
/// `CUstream` (of the current context, or of any context when none is current).
pub unsafe fn run(p: &AttnParams, cuda_stream: *mut c_void) -> Result<()> {
    let desc = unsafe { validate_on(p, cuda_stream)? };
    match desc.device {
        // SAFETY: forwarded contract.
        Device::Cpu => unsafe { crate::cpu::run(p, &desc) },
        Device::Cuda => unsafe { crate::cuda::run(p, &desc, cuda_stream) },
    }
}

/// The plan `run` would use for `p` (after validating it).
pub fn plan(p: &AttnParams) -> Result<AttnPlanInfo> {
    Ok(validate(p)?.plan)
}

/// Bytes of device workspace the call needs for split-KV partial results (0 on the CPU and
/// when the plan has one split). Partial outputs are fp32 `[splits][rows][heads][dim]`
/// followed by fp32 LSEs `[splits][rows][heads]`. For a CUDA decode call the split count, and
/// so the size, is made for the current context's GPU (its multiprocessors: `plan`); with no
/// context current, it is the largest that any GPU of the machine needs (`cuda::all_gpu_shapes`),
/// so that a workspace sized before a thread binds to its device serves a call on any of them.
/// Hopper calls of 2-4 splits usually merge inside thread-block clusters and leave it untouched.
/// The size does not depend on `threshold_scale_factor`: it is the larger of what the call needs
/// dense and with skipping (their decode plans can differ: `plan::dense_one_cta_per_sm`), so a
/// workspace sized once per shape serves dense calls, skip calls and the calibration sweep.
pub fn workspace_size(p: &AttnParams) -> Result<usize> {
    let d = validate(p)?;
    if d.device == Device::Cpu {
        return Ok(0);
    }
    if plan::is_decode(d.max_lq, d.group)
        && let Some(gpus) = crate::cuda::all_gpu_shapes()?
    {
        return Ok(workspace_on_any(&d, &gpus));
    }
    Ok(workspace_for(&d))
}

/// The most workspace the call `d` needs on any of `gpus` (its default plans made for each).
fn workspace_on_any(d: &Desc, gpus: &[crate::cuda::GpuShape]) -> usize {
    gpus.iter()
        .map(|&gpu| {
            let on = Desc { gpu, ..d.clone() };
            workspace_for(&Desc {
                plan: plan::default_plan(&on),
                ..on
            })
        })
        .max()
        .unwrap_or(0)
}

/// The workspace of the call `d` on its GPU (`d.gpu`, `d.plan`).
fn workspace_for(d: &Desc) -> usize {
    // A CUDA call runs its default plan (plan::effective_plan), so the other plan is the default
    // one of the same call with the factor on or off.
    let other = plan::default_plan(&Desc {
        factor: if d.factor == 0.0 { 1.0 } else { 0.0 },
        ..d.clone()
    });
    let splits = d.plan.num_kv_splits.max(other.num_kv_splits) as usize;
    if splits <= 1 {
        return 0;
    }
    let rows = d.batch * d.max_lq;
    // The split results are rows of the kernel's head dim (kernels/merge.cu).
    let per_split = rows * d.hq * (d.kernel_dim() + 1) * 4;
    per_split * splits
}

/// The calibration sweep (SPEC section 6): one dense pass (the output is written as by a
/// dense `run`; `threshold_scale_factor` is ignored) that adds to `skipped[c]` the tiles the
/// skip test would skip for `lambdas[c]` (evaluated against the dense running maximum) and to
/// `*visited` the tiles visited. Counters live where the call's device is. For lambda <= 1 the
/// counts equal those of separate skip runs (see `cpu::sweep`).
///
/// # Safety
/// As `run`; `skipped` holds `lambdas.len()` counters and `visited` one, on the call's device.
pub unsafe fn calibrate_sweep(
    p: &AttnParams,
    lambdas: &[f32],
    skipped: *mut u64,
    visited: *mut u64,
    cuda_stream: *mut c_void,
) -> Result<()> {
    // The sweep is one dense pass whatever the caller's factor, on the plan of a skip call (it
    // counts what skip calls would skip, and their decode splits can differ from a dense call's:
    // plan::dense_one_cta_per_sm). A factor that validation refuses is still refused.
    let mut as_skip = *p;
    if as_skip.threshold_scale_factor == 0.0 {
        as_skip.threshold_scale_factor = 1.0;
    }
    let d = Desc {
        factor: 0.0,
        ..unsafe { validate_on(&as_skip, cuda_stream)? }
    };
    if lambdas.is_empty() || lambdas.len() > 32 {
        return Err(invalid!(
            "num_lambdas = {} must be in 1..=32",
            lambdas.len()
        ));
    }
    for (i, &l) in lambdas.iter().enumerate() {
        if !l.is_finite() || l <= 0.0 {
            return Err(invalid!("lambdas[{i}] = {l} must be finite and > 0"));
        }
    }
    for (name, ptr) in [("skipped", skipped), ("visited", visited)] {
        if ptr.is_null() {
            return Err(invalid!("{name} is NULL"));
        }
        check_ptr_aligned(name, ptr as usize, 8)?;
    }
    match d.device {
        Device::Cpu => {
            let ln: Vec<f32> = lambdas.iter().map(|l| l.ln()).collect();
            // SAFETY: forwarded contract.
            let (vis, counts) = unsafe { crate::cpu::sweep(p, &d, &ln)? };
            use std::sync::atomic::{AtomicU64, Ordering};
            // SAFETY: host counters of the documented sizes, aligned (checked above).
            unsafe {
                for (c, n) in counts.iter().enumerate() {
                    AtomicU64::from_ptr(skipped.add(c)).fetch_add(*n, Ordering::Relaxed);
                }
                AtomicU64::from_ptr(visited).fetch_add(vis, Ordering::Relaxed);
            }
            crate::cpu::add_stats(p.skip_stats, vis, 0);
            Ok(())
        }
        Device::Cuda => unsafe {
            crate::cuda::sweep(
                p,
                &d,
                cuda_stream,
                crate::cuda::Sweep {
                    lambdas,
                    skipped,
                    visited,
                },
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::GpuShape;

    #[test]
    fn a_workspace_asked_with_no_context_current_serves_every_gpu() {
        // A decode call's KV splits fill one wave of the GPU's CTA slots, so an H100/H200, an
        // A100-like GPU (108 multiprocessors of 164 KB, the portable kernel) and a small GPU
        // need different workspaces for the same call; asked with no context current, the size
        // is the largest of them.
        let h200 = GpuShape::nominal();
        let a100 = GpuShape {
            sms: 108,
            sm90a: false,
            smem_per_sm: 164 * 1024,
        };
        let small = GpuShape {
            sms: 16,
            sm90a: false,
            smem_per_sm: 100 * 1024,
        };
        for (b, lk) in [(1, 131072), (4, 16384), (16, 32768)] {
            for factor in [0.0, 1.0] {
                let mut d = test_desc(b, 32, 8, 1, lk);
                d.factor = factor;
                d.plan = default_plan(&d);
                let each: Vec<usize> = [h200, a100, small]
                    .iter()
                    .map(|&gpu| workspace_on_any(&d, &[gpu]))
                    .collect();
                // On its own GPU (test_desc's is an H100/H200) the size is the call's own.
                assert_eq!(each[0], workspace_for(&d), "{b}x{lk} factor {factor}");
                let all = workspace_on_any(&d, &[small, h200, a100]);
                assert_eq!(all, *each.iter().max().unwrap(), "{b}x{lk} factor {factor}");
                if b == 1 {
                    // One sequence: every GPU splits, by its own multiprocessor count.
                    assert!(each.iter().all(|&n| n > 0), "{each:?}");
                    assert!(each[0] != each[1] && each[1] != each[2], "{each:?}");
                }
            }
        }
    }
}
