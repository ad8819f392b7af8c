//! Skip configuration: the user's spec, checkpoint calibration, ignore patterns and the
//! resolver that turns them (plus the timestep gate) into a kernel factor.

pub mod checkpoint;
pub mod fnmatch;
pub mod resolver;
pub mod spec;

pub use resolver::{Decision, Resolver};
