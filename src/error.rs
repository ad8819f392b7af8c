//! Errors of the Rust API. Each variant maps to one `blasst_status` of the C ABI; the
//! message always names the field or file and the offending value.

/// The status classes of the C ABI (`blasst_status`), as a Rust enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    InvalidArgument,
    Unsupported,
    Config,
    Io,
    NoDevice,
    Cuda,
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A field or argument is wrong; the message names it.
    #[error("{0}")]
    InvalidArgument(String),
    /// Valid, but this build or device cannot serve it.
    #[error("{0}")]
    Unsupported(String),
    /// Bad spec JSON or checkpoint calibration.
    #[error("{0}")]
    Config(String),
    /// A file is missing or unreadable.
    #[error("{0}")]
    Io(String),
    /// No driver, no NVRTC, or no GPU.
    #[error("{0}")]
    NoDevice(String),
    /// A CUDA call failed.
    #[error("{0}")]
    Cuda(String),
    /// A bug (for example a caught panic).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    pub fn kind(&self) -> StatusKind {
        match self {
            Error::InvalidArgument(_) => StatusKind::InvalidArgument,
            Error::Unsupported(_) => StatusKind::Unsupported,
            Error::Config(_) => StatusKind::Config,
            Error::Io(_) => StatusKind::Io,
            Error::NoDevice(_) => StatusKind::NoDevice,
            Error::Cuda(_) => StatusKind::Cuda,
            Error::Internal(_) => StatusKind::Internal,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Error::InvalidArgument(m)
            | Error::Unsupported(m)
            | Error::Config(m)
            | Error::Io(m)
            | Error::NoDevice(m)
            | Error::Cuda(m)
            | Error::Internal(m) => m,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// `invalid!("field = {}", v)` builds an [`Error::InvalidArgument`].
#[macro_export]
macro_rules! invalid {
    ($($arg:tt)*) => { $crate::Error::InvalidArgument(format!($($arg)*)) };
}

/// `config_err!(...)` builds an [`Error::Config`].
#[macro_export]
macro_rules! config_err {
    ($($arg:tt)*) => { $crate::Error::Config(format!($($arg)*)) };
}

/// `unsupported!(...)` builds an [`Error::Unsupported`].
#[macro_export]
macro_rules! unsupported {
    ($($arg:tt)*) => { $crate::Error::Unsupported(format!($($arg)*)) };
}
