//! Every way a flash command or a flash constructor can fail. Each NAND rule
//! violation is a distinct variant so tests can tell them apart; none of them
//! changes the flash contents.

use thiserror::Error;

/// Errors from the flash model.
#[derive(Debug, Error)]
pub enum FlashError {
    #[error("bad geometry: field `{field}`: {reason}")]
    BadGeometry { field: &'static str, reason: String },
    #[error("unknown geometry preset `{name}` (known: {known})")]
    UnknownPreset { name: String, known: String },
    #[error("block {block} is out of range (the device has {blocks} blocks)")]
    BlockOutOfRange { block: u32, blocks: u32 },
    #[error("page {page} of block {block} is out of range (a block has {pages_per_block} pages)")]
    PageOutOfRange {
        block: u32,
        page: u32,
        pages_per_block: u32,
    },
    #[error("{what}: expected {expected} bytes, got {got}")]
    BadLength {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("read of sectors {first}..{end} of a page with {sectors_per_page} sectors")]
    SectorOutOfRange {
        first: u32,
        end: u32,
        sectors_per_page: u32,
    },
    #[error(
        "program of page {page} of block {block}, which is not erased (erase the block first)"
    )]
    ProgramNotErased { block: u32, page: u32 },
    #[error("program of page {page} of block {block} out of order: the next page to program in this block is {next}")]
    ProgramOutOfOrder { block: u32, page: u32, next: u32 },
    #[error("battery-backed buffer access {offset}+{len} beyond its {size} bytes")]
    NvramOutOfRange {
        offset: usize,
        len: usize,
        size: usize,
    },
    #[error("power lost: the device accepts no command until it is restarted")]
    PowerLoss,
    /// A program the NAND failed (a bad or worn block): the page is
    /// consumed with unspecified content; the block's other pages keep
    /// theirs. The FTL must write the data elsewhere and stop using the
    /// block.
    #[error("program of page {page} of block {block} failed (the block is bad or worn out); write the data elsewhere and retire the block")]
    ProgramFailed { block: u32, page: u32 },
    /// An erase the NAND failed: no page changed, and the block is bad
    /// from now on.
    #[error("erase of block {block} failed (the block is bad or worn out); retire it")]
    EraseFailed { block: u32 },
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not an scftl flash image (bad magic); refusing to touch it")]
    NotAnImage { path: String },
    #[error("{path} is a flash image of format version {found}, newer than the supported {supported}; upgrade scftl")]
    NewerVersion {
        path: String,
        found: u32,
        supported: u32,
    },
    #[error("{path} is corrupt: {reason}")]
    CorruptImage { path: String, reason: String },
    #[error("{path} is truncated: {reason}")]
    TruncatedImage { path: String, reason: String },
    #[error("{path} is in use by another process (it holds the image lock); stop it first")]
    Locked { path: String },
    /// Creating an image over an existing file without permission to
    /// replace it. Front ends add how their user grants that permission.
    #[error("{path} already exists; refusing to overwrite an existing file")]
    AlreadyExists { path: String },
    #[error("{path} is open read-only; reopen it read-write (FileFlash::open) to change it")]
    ReadOnly { path: String },
}

impl FlashError {
    /// True for [`FlashError::PowerLoss`]: the command was cut by an injected
    /// power failure, not refused for a bug.
    pub fn is_power_loss(&self) -> bool {
        matches!(self, FlashError::PowerLoss)
    }

    /// True for [`FlashError::ProgramFailed`] and [`FlashError::EraseFailed`]:
    /// the medium failed the command (an FTL recovers from these), as
    /// opposed to a rule violation, a power cut or an I/O error.
    pub fn is_media_failure(&self) -> bool {
        matches!(
            self,
            FlashError::ProgramFailed { .. } | FlashError::EraseFailed { .. }
        )
    }
}

/// Result alias for the flash crate.
pub type Result<T, E = FlashError> = std::result::Result<T, E>;
