//! blasst: Skip-Softmax sparse attention (BLASST) with a C ABI.
//!
//! The safe Rust API is re-exported here; `ffi` is a thin C layer over it.
//! * [`attn`]: call parameters, validation, plans, [`attn::run`].
//! * [`cpu`]: the reference backend. [`cuda`]: the GPU path.
//! * [`config`]: spec JSON, checkpoint calibration, ignore patterns, [`Resolver`].
//! * [`schedule`]: flow-shift schedules and the gate's step counts. [`calibrate`]: fit and export.

pub mod attn;
pub mod calibrate;
pub mod config;
pub mod cpu;
pub mod cuda;
mod error;
/// The C ABI. Every function's safety contract is its C documentation in `include/blasst.h`:
/// pointers are NULL or valid for the sizes the arguments describe.
#[allow(clippy::missing_safety_doc)]
pub mod ffi;
pub mod host;
pub mod log;
pub mod schedule;
mod switches;
pub mod synth;

pub use attn::{AttnParams, AttnPlanInfo, DType, Device, Phase};
pub use calibrate::CalibFit;
pub use config::Resolver;
pub use error::{Error, Result, StatusKind};

/// The ABI version of `include/blasst.h` (bumped on any incompatible change).
pub const BLASST_ABI_VERSION: u32 = 1;

pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
