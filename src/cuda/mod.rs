//! The CUDA path. The GPU kernels (SPEC section 2, issues 5 and 6) are not part of this
//! build yet: a CUDA call first probes for the driver and NVRTC (loaded dynamically, never
//! linked, so the crate builds without a CUDA toolkit) and answers
//! `BLASST_ERROR_NO_DEVICE` when either is missing, otherwise `BLASST_ERROR_UNSUPPORTED`
//! saying the kernels are not built. Nothing here can abort the host.

use crate::attn::{AttnParams, Desc};
use crate::{Error, Result};
use std::ffi::{CString, c_void};
use std::sync::OnceLock;

const DRIVER_LIBS: [&str; 2] = ["libcuda.so.1", "libcuda.so"];
const NVRTC_LIBS: [&str; 4] = [
    "libnvrtc.so.13",
    "libnvrtc.so.12",
    "libnvrtc.so",
    "libnvrtc-builtins.so.13.0",
];

fn can_load(names: &[&str]) -> bool {
    names.iter().any(|n| {
        let c = CString::new(*n).unwrap();
        // SAFETY: dlopen with a valid C string; the handle is released right away.
        unsafe {
            let h = libc::dlopen(c.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL);
            if h.is_null() {
                false
            } else {
                libc::dlclose(h);
                true
            }
        }
    })
}

/// Whether the driver and NVRTC libraries can be loaded (cached per process).
pub fn probe() -> Result<()> {
    static PROBE: OnceLock<Result<()>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            if !can_load(&DRIVER_LIBS) {
                return Err(Error::NoDevice(
                    "no CUDA driver: libcuda.so.1 could not be loaded (is an NVIDIA driver installed?)".into(),
                ));
            }
            if !can_load(&NVRTC_LIBS) {
                return Err(Error::NoDevice(
                    "no NVRTC: libnvrtc.so.13 / libnvrtc.so.12 could not be loaded (install the CUDA runtime compiler)".into(),
                ));
            }
            Ok(())
        })
        .clone()
}

/// Whether a CUDA device can be used at all by this build.
pub fn available() -> bool {
    probe().is_ok()
}

pub const NOT_BUILT: &str = "the GPU kernels are not part of this build yet (prefill: issue 5, decode: issue 6); use device = BLASST_DEVICE_CPU";

/// # Safety
/// As `attn::run`.
pub unsafe fn run(_p: &AttnParams, _d: &Desc, _stream: *mut c_void) -> Result<()> {
    probe()?;
    Err(Error::Unsupported(NOT_BUILT.into()))
}
