//! Element types of the CPU backend and the vectorisable exponential it uses.

use half::{bf16, f16};

pub trait Elem: Copy + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    fn from_f32(v: f32) -> Self;
}

impl Elem for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        v
    }
}

impl Elem for f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        f16::from_f32(v)
    }
}

impl Elem for bf16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        bf16::from_f32(v)
    }
}

/// e^x in f32 with a relative error of a few ulp, branch-free so loops over it vectorise;
/// `x < -87` (including -inf) gives exactly 0. libm's `expf` is a call per element and
/// would dominate the CPU backend's time.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    const ROUND: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    let xc = x.clamp(-87.0, 88.0);
    // t's low mantissa bits hold n as an integer (1.5 * 2^23 has the bits 0x4B40_0000): read
    // from them rather than with `as i32`, a saturating conversion (more instructions per
    // element; the same n).
    let t = xc * LOG2E + ROUND;
    let n = t - ROUND;
    let ni = t.to_bits() as i32 - 0x4B40_0000;
    let r = xc - n * LN2_HI - n * LN2_LO;
    // Taylor series of e^r to degree 7 on |r| <= 0.35 (error < 1e-8).
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    let scale = f32::from_bits(((ni + 127) as u32) << 23);
    if x < -87.0 { 0.0 } else { p * scale }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn exp_matches_libm() {
        let mut worst = 0.0f64;
        let mut x = -87.0f32;
        while x < 88.0 {
            let want = (x as f64).exp();
            let got = exp_f32(x) as f64;
            worst = worst.max(((got - want) / want).abs());
            x += 0.0137;
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(-100.0), 0.0);
        assert_eq!(exp_f32(0.0), 1.0);
    }
}
