//! C ABI: the skip-configuration resolver and its timestep gate.

use super::{blasst_status, boundary, boundary_void, cstr, non_null, slice};
use crate::attn::Phase;
use crate::config::Resolver;
use crate::invalid;
use std::ffi::c_char;
use std::path::Path;

/// Opaque resolver handle: create with blasst_resolver_new, release with blasst_resolver_free.
/// Thread-safe: blasst_resolver_factor may be called concurrently.
#[allow(non_camel_case_types)]
pub struct blasst_resolver(Resolver);

/// Parses `spec_json`, reads `<checkpoint_dir>/<component>/config.json` for each component
/// (first = primary; `checkpoint_dir` may be NULL) and on success stores a new handle in
/// `*out`. On failure `*out` is left unchanged and nothing is allocated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_resolver_new(
    spec_json: *const c_char,
    checkpoint_dir: *const c_char,
    components: *const *const c_char,
    num_components: usize,
    out: *mut *mut blasst_resolver,
) -> blasst_status {
    boundary(|| {
        non_null("out", out)?;
        let spec = unsafe { cstr("spec_json", spec_json)? };
        let dir = if checkpoint_dir.is_null() {
            None
        } else {
            Some(unsafe { cstr("checkpoint_dir", checkpoint_dir)? })
        };
        if num_components > 1024 {
            return Err(invalid!(
                "num_components = {num_components} is absurdly large"
            ));
        }
        let ptrs = unsafe { slice("components", components, num_components)? };
        let mut names = Vec::with_capacity(ptrs.len());
        for (i, p) in ptrs.iter().enumerate() {
            names.push(unsafe { cstr(&format!("components[{i}]"), *p)? });
        }
        let r = Resolver::new(spec, dir.map(Path::new), &names)?;
        unsafe { *out = Box::into_raw(Box::new(blasst_resolver(r))) };
        Ok(())
    })
}

/// Releases a resolver. NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_resolver_free(r: *mut blasst_resolver) {
    boundary_void(|| {
        if !r.is_null() {
            // SAFETY: created by Box::into_raw in blasst_resolver_new.
            drop(unsafe { Box::from_raw(r) });
        }
    })
}

/// The threshold_scale_factor for one call of `layer_name` (full module name, e.g.
/// "transformer_2.blocks.3.attn1") in `phase` with KV length `max_seqlen_kv`, at diffusion
/// timestep `timestep` in [0, 1] (NAN: none published). 0 = run dense.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_resolver_factor(
    r: *mut blasst_resolver,
    layer_name: *const c_char,
    phase: u32,
    max_seqlen_kv: u32,
    timestep: f64,
    factor_out: *mut f32,
) -> blasst_status {
    boundary(|| {
        non_null("resolver", r)?;
        non_null("factor_out", factor_out)?;
        let layer = unsafe { cstr("layer_name", layer_name)? };
        let phase = Phase::try_from(phase)?;
        let t = if timestep.is_nan() {
            None
        } else {
            Some(timestep)
        };
        let f = unsafe { &(*r).0 }.factor(layer, phase, max_seqlen_kv, t)?;
        unsafe { *factor_out = f };
        Ok(())
    })
}

/// Writes a JSON description (spec as resolved, per-component calibration, ignore lists, the
/// checkpoint values reported but not applied) into `buf` of `len` bytes, NUL-terminated.
/// `*needed` (if not NULL) gets the size including the NUL. `buf = NULL` only queries the size;
/// a `buf` that is too small gets nothing and BLASST_ERROR_INVALID_ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn blasst_resolver_describe(
    r: *const blasst_resolver,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> blasst_status {
    boundary(|| {
        non_null("resolver", r)?;
        let text = unsafe { &(*r).0 }.describe();
        let need = text.len() + 1;
        if !needed.is_null() {
            unsafe { *needed = need };
        }
        if buf.is_null() {
            if needed.is_null() {
                return Err(invalid!("buf and needed are both NULL"));
            }
            return Ok(());
        }
        if len < need {
            return Err(invalid!(
                "len = {len} is too small: the description needs {need} bytes"
            ));
        }
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, text.len());
            *buf.add(text.len()) = 0;
        }
        Ok(())
    })
}
