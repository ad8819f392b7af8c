//! Library logging: warnings go to stderr prefixed `blasst:` unless the host installs a
//! callback; `BLASST_LOG=off|error|warn|info|debug` sets the level (default `warn`).

use std::ffi::{CString, c_void};
use std::sync::{OnceLock, RwLock};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u32)]
pub enum Level {
    Error = 1,
    Warn = 2,
    Info = 3,
    Debug = 4,
}

/// A host's log callback: `(level, NUL-terminated message, user_data)`.
pub type LogFn =
    unsafe extern "C" fn(level: u32, message: *const std::ffi::c_char, user_data: *mut c_void);

#[derive(Clone, Copy)]
struct Sink {
    cb: LogFn,
    user_data: *mut c_void,
}
// SAFETY: the host promises, by installing the callback, that it may be called from any
// thread with its user_data; we only pass the pointer back.
unsafe impl Send for Sink {}
unsafe impl Sync for Sink {}

static SINK: RwLock<Option<Sink>> = RwLock::new(None);

/// Maximum level that is emitted; 0 = off. Read once from `BLASST_LOG`.
fn max_level() -> u32 {
    static LEVEL: OnceLock<u32> = OnceLock::new();
    *LEVEL.get_or_init(|| parse_level(std::env::var("BLASST_LOG").ok().as_deref()))
}

fn parse_level(v: Option<&str>) -> u32 {
    match v.map(|s| s.trim().to_ascii_lowercase()) {
        None => Level::Warn as u32,
        Some(s) => match s.as_str() {
            "off" | "none" | "0" => 0,
            "error" => Level::Error as u32,
            "warn" | "warning" | "" => Level::Warn as u32,
            "info" => Level::Info as u32,
            "debug" | "trace" => Level::Debug as u32,
            _ => Level::Warn as u32,
        },
    }
}

/// Installs (or with `None` removes) the host's callback.
pub fn set_callback(cb: Option<LogFn>, user_data: *mut c_void) {
    let mut g = SINK.write().unwrap_or_else(|e| e.into_inner());
    *g = cb.map(|cb| Sink { cb, user_data });
}

pub fn enabled(level: Level) -> bool {
    (level as u32) <= max_level()
}

pub fn log(level: Level, message: &str) {
    if !enabled(level) {
        return;
    }
    let sink = *SINK.read().unwrap_or_else(|e| e.into_inner());
    match sink {
        Some(s) => {
            let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the host installed this callback for exactly this call shape.
            unsafe { (s.cb)(level as u32, c.as_ptr(), s.user_data) };
        }
        None => {
            let tag = match level {
                Level::Error => "error",
                Level::Warn => "warning",
                Level::Info => "info",
                Level::Debug => "debug",
            };
            eprintln!("blasst: {tag}: {message}");
        }
    }
}

pub fn warn(message: &str) {
    log(Level::Warn, message)
}

pub fn debug(message: &str) {
    log(Level::Debug, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn levels_parse() {
        assert_eq!(parse_level(None), 2);
        assert_eq!(parse_level(Some("off")), 0);
        assert_eq!(parse_level(Some("DEBUG")), 4);
        assert_eq!(parse_level(Some("error")), 1);
        assert_eq!(parse_level(Some("info")), 3);
    }
}
