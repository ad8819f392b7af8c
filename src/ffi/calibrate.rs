//! C ABI: calibration sweep, fit and export.

use super::{blasst_status, boundary, cstr, non_null, slice};
use crate::attn::AttnParams;
use crate::calibrate::{self, CalibFit};
use crate::invalid;
use std::ffi::{c_char, c_void};
use std::path::Path;

/// One dense pass (the output is written as by a dense call; threshold_scale_factor is
/// ignored) that counts, for each of `num_lambdas` (1..32) candidate lambdas (> 0), the tiles
/// its skip test would skip (`skipped[i]`) out of `*visited` tiles, evaluated against the dense
/// running maximum. Counters are added to and live where the call's device is (device memory
/// for BLASST_DEVICE_CUDA, which runs on `cuda_stream` in the context `blasst_attn_run` would
/// use). For lambda <= 1 the counts equal what separate runs with that
/// threshold measure; for lambda > 1 they may differ (a skip run can skip a tile that would have
/// raised a running maximum).
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
        if num_lambdas == 0 || num_lambdas > 32 {
            return Err(invalid!("num_lambdas = {num_lambdas} must be in 1..=32"));
        }
        let l = unsafe { slice("lambdas", lambdas, num_lambdas as usize)? };
        let params = unsafe { super::attn::params(p)? };
        unsafe { crate::attn::calibrate_sweep(params, l, skipped, visited, cuda_stream) }
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
