//! C ABI: schedules and the gate's step counts.

use super::{blasst_status, boundary, non_null, slice};
use crate::schedule;

/// Writes the flow-shifted rectified-flow schedule, `num_steps + 1` values, into `t_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_schedule_flow_shift(
    shift: f64,
    num_steps: u32,
    t_out: *mut f64,
) -> blasst_status {
    boundary(|| {
        non_null("t_out", t_out)?;
        let t = schedule::flow_shift(shift, num_steps)?;
        unsafe { std::ptr::copy_nonoverlapping(t.as_ptr(), t_out, t.len()) };
        Ok(())
    })
}

/// `*dense_steps = count(t[i] > cutoff)` over the `n` published timesteps; cutoff 0 (gate
/// off) gives 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_schedule_dense_steps(
    t: *const f64,
    n: usize,
    cutoff: f64,
    dense_steps: *mut u32,
) -> blasst_status {
    boundary(|| {
        non_null("dense_steps", dense_steps)?;
        let ts = unsafe { slice("t", t, n)? };
        let d = schedule::dense_steps(ts, cutoff)?;
        unsafe { *dense_steps = d as u32 };
        Ok(())
    })
}
