//! C ABI: calibration sweep, fit and export.

use super::{blasst_status, boundary, cstr, non_null, slice};
use crate::attn::AttnParams;
use crate::calibrate::{self, CalibFit};
use crate::invalid;
use std::ffi::{c_char, c_void};
use std::path::Path;

/// One dense pass that counts, for each of `num_lambdas` (<= 32) candidate lambdas, the tiles
/// its skip test would skip (`skipped[i]`) out of `visited` tiles; counters are added to and
/// live where the call's device is.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_calibrate_sweep(
    p: *const AttnParams,
    lambdas: *const f32,
    num_lambdas: u32,
    skipped: *mut u64,
    visited: *mut u64,
    cuda_stream: *mut c_void,
) -> blasst_status {
    boundary(|| {
        non_null("params", p)?;
        non_null("skipped", skipped)?;
        non_null("visited", visited)?;
        if num_lambdas == 0 || num_lambdas > 32 {
            return Err(invalid!("num_lambdas = {num_lambdas} must be in 1..=32"));
        }
        let _ = (lambdas, cuda_stream);
        Err(crate::unsupported!(
            "blasst_calibrate_sweep is not built yet (issue 7)"
        ))
    })
}

/// Least squares of ln(lambda * L) on sparsity over the `n` points with sparsity in
/// [0.10, 0.90]; fewer than 3 such points is BLASST_ERROR_INVALID_ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_calibration_fit(
    lambdas: *const f64,
    seq_lens: *const u32,
    sparsities: *const f64,
    n: usize,
    out: *mut CalibFit,
) -> blasst_status {
    boundary(|| {
        non_null("out", out)?;
        let l = unsafe { slice("lambdas", lambdas, n)? };
        let s = unsafe { slice("seq_lens", seq_lens, n)? };
        let sp = unsafe { slice("sparsities", sparsities, n)? };
        let f = calibrate::fit(l, s, sp)?;
        unsafe { *out = f };
        Ok(())
    })
}

/// Adds or replaces the skip_softmax group of `sparse_attention_config` in an existing
/// `config.json`, keeping every other key; atomic (temporary file + rename).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_calibration_write(
    config_json_path: *const c_char,
    prefill: *const CalibFit,
    decode: *const CalibFit,
    ignore: *const *const c_char,
    num_ignore: usize,
) -> blasst_status {
    boundary(|| {
        let path = unsafe { cstr("config_json_path", config_json_path)? };
        non_null("prefill", prefill)?;
        let ptrs = unsafe { slice("ignore", ignore, num_ignore)? };
        let mut pats = Vec::with_capacity(ptrs.len());
        for (i, p) in ptrs.iter().enumerate() {
            pats.push(unsafe { cstr(&format!("ignore[{i}]"), *p)? });
        }
        let dec = if decode.is_null() {
            None
        } else {
            Some(unsafe { &*decode })
        };
        calibrate::write(Path::new(path), unsafe { &*prefill }, dec, &pats)
    })
}
