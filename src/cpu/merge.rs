//! Combining partial attention results by their log-sum-exp (split-KV, context
//! parallelism). `out = sum_s exp(lse_s - lse) * out_s`, `lse = log sum_s exp(lse_s)`.

use super::elem::exp_f32;

/// Merges `n` partial rows. `part(s)` returns the s-th partial row (normalised) and its LSE.
/// Writes the merged row into `out` and returns its LSE; all parts -inf gives a zero row and
/// -inf.
pub fn merge_rows<'a>(n: usize, part: impl Fn(usize) -> (&'a [f32], f32), out: &mut [f32]) -> f32 {
    let mut max = f32::NEG_INFINITY;
    for s in 0..n {
        max = max.max(part(s).1);
    }
    out.iter_mut().for_each(|x| *x = 0.0);
    if max == f32::NEG_INFINITY {
        return f32::NEG_INFINITY;
    }
    let mut sum = 0.0f32;
    for s in 0..n {
        let (row, lse) = part(s);
        let w = exp_f32(lse - max);
        if w == 0.0 {
            continue;
        }
        sum += w;
        for (o, x) in out.iter_mut().zip(row) {
            *o += w * x;
        }
    }
    let inv = 1.0 / sum;
    out.iter_mut().for_each(|x| *x *= inv);
    max + sum.ln()
}
