//! Denoising schedules and the timestep gate's step counts (SPEC section 5).

use crate::{Result, invalid};

/// The flow-shifted rectified-flow schedule: `num_steps + 1` values
/// `t_k = s*u / (1 + (s - 1)*u)` with `u_k = 1 - k/N`; the denoiser's N calls see `t_0..t_{N-1}`.
pub fn flow_shift(shift: f64, num_steps: u32) -> Result<Vec<f64>> {
    if !shift.is_finite() || shift <= 0.0 {
        return Err(invalid!("shift = {shift} must be finite and > 0"));
    }
    if num_steps == 0 || num_steps > 1_000_000 {
        return Err(invalid!("num_steps = {num_steps} must be in 1..=1000000"));
    }
    let n = num_steps as f64;
    Ok((0..=num_steps)
        .map(|k| {
            // (N - k) / N rounds once, so u is exact wherever k/N is a "round" number.
            let u = (num_steps - k) as f64 / n;
            shift * u / (1.0 + (shift - 1.0) * u)
        })
        .collect())
}

/// Steps the gate keeps dense: `count(t_i > cutoff)`; a cutoff of 0 is the sentinel "gate off",
/// so no step is dense.
pub fn dense_steps(t: &[f64], cutoff: f64) -> Result<usize> {
    if !cutoff.is_finite() || !(0.0..=1.0).contains(&cutoff) {
        return Err(invalid!("cutoff = {cutoff} must be in [0, 1]"));
    }
    if let Some((i, x)) = t.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(invalid!("t[{i}] = {x} is not finite"));
    }
    if cutoff == 0.0 {
        return Ok(0);
    }
    Ok(t.iter().filter(|&&x| x > cutoff).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_one_is_linear() {
        let t = flow_shift(1.0, 4).unwrap();
        assert_eq!(t, vec![1.0, 0.75, 0.5, 0.25, 0.0]);
    }

    #[test]
    fn counts() {
        let t = flow_shift(5.0, 50).unwrap();
        assert_eq!(dense_steps(&t[..50], 0.0).unwrap(), 0);
        assert_eq!(dense_steps(&t[..50], 1.0).unwrap(), 0);
        assert!(dense_steps(&t[..50], 0.9).unwrap() > 10);
        assert!(dense_steps(&t, 1.5).is_err());
        assert!(flow_shift(0.0, 3).is_err());
        assert!(flow_shift(3.0, 0).is_err());
    }
}
