//! The safe host-slice API over both backends (tools, tests, the demo): contiguous
//! `[batch, seq, heads, dim]` slices in host memory; on the GPU they are copied in, the call
//! runs on the default stream, and results are copied back.

use crate::Result;
use crate::attn::{AttnParams, BLASST_DEVICE_CPU, BLASST_DEVICE_CUDA, Device};
use crate::cpu::{DTypeOf, Elem, Options, Shape, SkipStats, contiguous_params};

/// Builds the call for `device`, hands it and a `counters.len()` counter array (zeroed, on the
/// call's device) to `f`, and copies outputs and counters back.
fn with_call<T: Elem + DTypeOf>(
    device: Device,
    shape: Shape,
    (q, k, v): (&[T], &[T], &[T]),
    o: &mut [T],
    lse: Option<&mut [f32]>,
    opts: &Options,
    counters: &mut [u64],
    f: impl FnOnce(&mut AttnParams, *mut u64) -> Result<()>,
) -> Result<()> {
    shape.check(
        q.len(),
        k.len(),
        v.len(),
        o.len(),
        lse.as_ref().map(|l| l.len()),
    )?;
    match device {
        Device::Cpu => {
            let mut p = contiguous_params(shape, T::DTYPE, BLASST_DEVICE_CPU, opts)?;
            (p.q, p.k, p.v, p.o) = (
                q.as_ptr().cast(),
                k.as_ptr().cast(),
                v.as_ptr().cast(),
                o.as_mut_ptr().cast(),
            );
            if let Some(l) = lse {
                p.lse = l.as_mut_ptr();
            }
            f(&mut p, counters.as_mut_ptr())
        }
        Device::Cuda => {
            use crate::cuda::DeviceBuffer;
            let mut p = contiguous_params(shape, T::DTYPE, BLASST_DEVICE_CUDA, opts)?;
            let (dq, dk, dv) = (
                DeviceBuffer::from_slice(q)?,
                DeviceBuffer::from_slice(k)?,
                DeviceBuffer::from_slice(v)?,
            );
            let d_o = DeviceBuffer::new(std::mem::size_of_val(o))?;
            let d_lse = DeviceBuffer::new(shape.lse_len() * 4)?;
            let d_cnt = DeviceBuffer::new(std::mem::size_of_val(counters))?;
            (p.q, p.k, p.v, p.o) = (dq.ptr(), dk.ptr(), dv.ptr(), d_o.ptr());
            if lse.is_some() {
                p.lse = d_lse.ptr().cast();
            }
            f(&mut p, d_cnt.ptr().cast())?;
            d_o.copy_to(o)?;
            if let Some(l) = lse {
                d_lse.copy_to(l)?;
            }
            d_cnt.copy_to(counters)
        }
    }
}

/// Attention on `device`; `lse` (optional) is `[batch * seqlen_q][num_q_heads]`. Returns the
/// skip statistics.
pub fn attention<T: Elem + DTypeOf>(
    device: Device,
    shape: Shape,
    q: &[T],
    k: &[T],
    v: &[T],
    o: &mut [T],
    lse: Option<&mut [f32]>,
    opts: Options,
) -> Result<SkipStats> {
    let mut st = [0u64; 2];
    with_call(
        device,
        shape,
        (q, k, v),
        o,
        lse,
        &opts,
        &mut st,
        |p, ctr| {
            p.skip_stats = ctr;
            // SAFETY: every pointer describes a buffer of the shape's size on the call's device.
            unsafe { crate::attn::run(p, std::ptr::null_mut()) }
        },
    )?;
    Ok(SkipStats {
        visited: st[0],
        skipped: st[1],
    })
}

/// The calibration sweep on `device` (see `attn::calibrate_sweep`): returns (visited, skipped
/// per candidate lambda); the dense output is written to `o`.
pub fn calibrate_sweep<T: Elem + DTypeOf>(
    device: Device,
    shape: Shape,
    q: &[T],
    k: &[T],
    v: &[T],
    o: &mut [T],
    opts: Options,
    lambdas: &[f32],
) -> Result<(u64, Vec<u64>)> {
    let mut cnt = vec![0u64; lambdas.len() + 1];
    let n = lambdas.len();
    with_call(
        device,
        shape,
        (q, k, v),
        o,
        None,
        &opts,
        &mut cnt,
        |p, ctr| {
            // SAFETY: as above; `ctr` holds n + 1 counters.
            unsafe {
                crate::attn::calibrate_sweep(p, lambdas, ctr, ctr.add(n), std::ptr::null_mut())
            }
        },
    )?;
    let visited = cnt.pop().unwrap_or(0);
    Ok((visited, cnt))
}
