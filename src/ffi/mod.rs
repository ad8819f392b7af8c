//! The C ABI: one panic boundary, pointer checks, the thread-local last error and the
//! status mapping. Each submodule is a thin shell over the Rust API.

mod attn;
mod calibrate;
mod config;
mod schedule;

pub use attn::*;
pub use calibrate::*;
pub use config::*;
pub use schedule::*;

use crate::{Error, StatusKind};
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_void};

/// Status of every fallible call. On failure `blasst_last_error()` says why.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum blasst_status {
    BLASST_OK = 0,
    /// A field or argument is wrong; the message names it.
    BLASST_ERROR_INVALID_ARGUMENT = 1,
    /// Valid, but this build or device cannot serve it.
    BLASST_ERROR_UNSUPPORTED = 2,
    /// Bad spec JSON or checkpoint calibration.
    BLASST_ERROR_CONFIG = 3,
    /// File missing or unreadable.
    BLASST_ERROR_IO = 4,
    /// No driver, no NVRTC, or no GPU.
    BLASST_ERROR_NO_DEVICE = 5,
    /// A CUDA call failed; the message has the CUDA error.
    BLASST_ERROR_CUDA = 6,
    /// A bug, e.g. a caught panic.
    BLASST_ERROR_INTERNAL = 7,
}

/// Log levels of `blasst_log_fn`.
pub const BLASST_LOG_ERROR: u32 = 1;
pub const BLASST_LOG_WARN: u32 = 2;
pub const BLASST_LOG_INFO: u32 = 3;
pub const BLASST_LOG_DEBUG: u32 = 4;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn status_of(e: &Error) -> blasst_status {
    use blasst_status::*;
    match e.kind() {
        StatusKind::InvalidArgument => BLASST_ERROR_INVALID_ARGUMENT,
        StatusKind::Unsupported => BLASST_ERROR_UNSUPPORTED,
        StatusKind::Config => BLASST_ERROR_CONFIG,
        StatusKind::Io => BLASST_ERROR_IO,
        StatusKind::NoDevice => BLASST_ERROR_NO_DEVICE,
        StatusKind::Cuda => BLASST_ERROR_CUDA,
        StatusKind::Internal => BLASST_ERROR_INTERNAL,
    }
}

/// Records `e` as the calling thread's last error and returns its status.
pub(crate) fn report(e: Error) -> blasst_status {
    let msg = CString::new(e.message().replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|l| *l.borrow_mut() = msg);
    status_of(&e)
}

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal error (caught panic, please report): {what}")
}

/// The panic boundary of every exported function returning a status: runs `f`, maps its
/// error or a panic to a status and records the message. Nothing unwinds into C.
pub(crate) fn boundary(f: impl FnOnce() -> crate::Result<()>) -> blasst_status {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => blasst_status::BLASST_OK,
        Ok(Err(e)) => report(e),
        Err(p) => report(Error::Internal(panic_message(p))),
    }
}

/// The panic boundary for exported functions that return nothing.
pub(crate) fn boundary_void(f: impl FnOnce()) {
    if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        report(Error::Internal(panic_message(p)));
    }
}

/// `name` must not be NULL.
pub(crate) fn non_null<T>(name: &str, p: *const T) -> crate::Result<()> {
    if p.is_null() {
        Err(crate::invalid!("{name} is NULL"))
    } else {
        Ok(())
    }
}

/// A borrowed UTF-8 C string argument.
pub(crate) unsafe fn cstr<'a>(name: &str, p: *const c_char) -> crate::Result<&'a str> {
    non_null(name, p)?;
    // SAFETY: non-null, NUL-terminated per the C contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| crate::invalid!("{name} is not valid UTF-8"))
}

/// A borrowed C array argument; NULL is allowed only when `n == 0`.
pub(crate) unsafe fn slice<'a, T>(name: &str, p: *const T, n: usize) -> crate::Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    non_null(name, p)?;
    if !(p as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(crate::invalid!("{name} = {p:p} is misaligned"));
    }
    // SAFETY: the caller passes `n` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The calling thread's last failure message; "" if none. Valid until the thread's next
/// failing call. Successful calls do not clear it.
#[unsafe(no_mangle)]
pub extern "C" fn blasst_last_error() -> *const c_char {
    static EMPTY: &CStr = c"";
    std::panic::catch_unwind(|| LAST_ERROR.with(|l| l.borrow().as_ptr())).unwrap_or(EMPTY.as_ptr())
}

/// The library version, e.g. "0.1.0" (static storage).
#[unsafe(no_mangle)]
pub extern "C" fn blasst_version() -> *const c_char {
    static V: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => c"",
        };
    V.as_ptr()
}

/// BLASST_ABI_VERSION of the library actually loaded.
#[unsafe(no_mangle)]
pub extern "C" fn blasst_abi_version() -> u32 {
    crate::BLASST_ABI_VERSION
}

/// A host log callback: level (BLASST_LOG_*), NUL-terminated message, the user_data given to
/// blasst_set_log_callback. May be called from any thread.
#[allow(non_camel_case_types)]
pub type blasst_log_fn =
    Option<unsafe extern "C" fn(level: u32, message: *const c_char, user_data: *mut c_void)>;

/// Routes library messages to `cb` (NULL: back to stderr). `BLASST_LOG` still sets the level.
#[unsafe(no_mangle)]
pub extern "C" fn blasst_set_log_callback(cb: blasst_log_fn, user_data: *mut c_void) {
    boundary_void(|| crate::log::set_callback(cb, user_data))
}

/// Deliberately panics inside the panic boundary and returns what the boundary made of it
/// (BLASST_ERROR_INTERNAL). For hosts' and our own tests of the no-unwind guarantee.
#[unsafe(no_mangle)]
pub extern "C" fn blasst_debug_trigger_panic() -> blasst_status {
    boundary(|| panic!("blasst_debug_trigger_panic was called"))
}
