//! The file system's errors: one typed enum whose variants map to the errno
//! values a FUSE reply carries ([`FsError::errno`]). Every caller mistake
//! and every corrupt byte on the device becomes one of these values; nothing
//! in this crate panics on input.

use ftl::FtlError;
use thiserror::Error;

use crate::mode::CommitMode;

/// Linux errno values (the FUSE layer passes them to `reply.error`).
pub mod errno {
    pub const EPERM: i32 = 1;
    pub const ENOENT: i32 = 2;
    pub const EIO: i32 = 5;
    pub const E2BIG: i32 = 7;
    pub const EACCES: i32 = 13;
    pub const ENXIO: i32 = 6;
    pub const EEXIST: i32 = 17;
    pub const ENOTDIR: i32 = 20;
    pub const EISDIR: i32 = 21;
    pub const EINVAL: i32 = 22;
    pub const EFBIG: i32 = 27;
    pub const ENOSPC: i32 = 28;
    pub const EMLINK: i32 = 31;
    pub const ENAMETOOLONG: i32 = 36;
    pub const ERANGE: i32 = 34;
    pub const ENOTEMPTY: i32 = 39;
    pub const ENODATA: i32 = 61;
    pub const EOVERFLOW: i32 = 75;
    pub const EOPNOTSUPP: i32 = 95;
}

/// Errors of the file system.
#[derive(Debug, Error)]
pub enum FsError {
    #[error("no such file or directory")]
    NotFound,
    #[error("file exists")]
    Exists,
    #[error("not a directory")]
    NotDir,
    #[error("is a directory")]
    IsDir,
    #[error("directory not empty")]
    NotEmpty,
    #[error("no space left on the file system ({0})")]
    NoSpace(&'static str),
    #[error("name of {0} bytes is longer than the 255-byte limit")]
    NameTooLong(usize),
    #[error("file too large: offset {0} is past the largest file size")]
    FileTooBig(u64),
    #[error("invalid argument: {0}")]
    Invalid(String),
    #[error("operation not permitted: {0}")]
    NotPermitted(String),
    #[error("too many links")]
    TooManyLinks,
    #[error("device error: {0}")]
    Device(#[from] FtlError),
    #[error("file system corrupt: {0}")]
    Corrupt(String),
    #[error("no file system on this device: {0}")]
    NotFormatted(String),
    #[error("the {mode} commit mode needs a snapshot-consistent device (the scftl FTL); this device runs the {ftl} FTL, where only the log mode is crash safe — mount with mode log")]
    ModeNotAllowed { mode: CommitMode, ftl: String },
    #[error("the {mode} commit mode needs room for {needed} {unit} per transaction step, but this device allows only {available}; {hint}")]
    StepTooSmall {
        mode: CommitMode,
        needed: u64,
        available: u64,
        unit: &'static str,
        hint: &'static str,
    },
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("operation not supported: {0}")]
    NotSupported(String),
    #[error("no data at or after offset {0} (it is at or past the end of file)")]
    NoData(u64),
    #[error("time {0} ns is outside the range this file system stores: {1}")]
    TimeOutOfRange(i128, &'static str),
    #[error("no extended attribute `{0}`")]
    NoAttr(String),
    #[error("extended attribute {0}")]
    AttrRange(String),
    #[error("extended attribute value of {0} bytes is larger than the 65,536-byte limit")]
    AttrTooBig(usize),
    #[error("permission denied: {0}")]
    Denied(String),
    #[error("the file system stopped after a device error and must be remounted: {0}")]
    Poisoned(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl FsError {
    /// The errno a FUSE reply should carry.
    pub fn errno(&self) -> i32 {
        use errno::*;
        match self {
            FsError::NotFound => ENOENT,
            FsError::Exists => EEXIST,
            FsError::NotDir => ENOTDIR,
            FsError::IsDir => EISDIR,
            FsError::NotEmpty => ENOTEMPTY,
            FsError::NoSpace(_) => ENOSPC,
            FsError::NameTooLong(_) => ENAMETOOLONG,
            FsError::FileTooBig(_) => EFBIG,
            FsError::Invalid(_) | FsError::Unsupported(_) => EINVAL,
            FsError::NotPermitted(_) => EPERM,
            FsError::NotSupported(_) => EOPNOTSUPP,
            FsError::NoData(_) => ENXIO,
            FsError::TooManyLinks => EMLINK,
            FsError::TimeOutOfRange(..) => EOVERFLOW,
            FsError::NoAttr(_) => ENODATA,
            FsError::AttrRange(_) => ERANGE,
            FsError::AttrTooBig(_) => E2BIG,
            FsError::Denied(_) => EACCES,
            FsError::Device(_)
            | FsError::Corrupt(_)
            | FsError::NotFormatted(_)
            | FsError::ModeNotAllowed { .. }
            | FsError::StepTooSmall { .. }
            | FsError::Poisoned(_)
            | FsError::Internal(_) => EIO,
        }
    }

    /// True when the error came from the device below (an I/O error, an
    /// injected power loss, or a refused write).
    pub fn is_device(&self) -> bool {
        matches!(self, FsError::Device(_))
    }
}

/// Result alias of the file system.
pub type Result<T, E = FsError> = std::result::Result<T, E>;

/// A corrupt-image error with a formatted message.
pub(crate) fn corrupt(msg: impl Into<String>) -> FsError {
    FsError::Corrupt(msg.into())
}
