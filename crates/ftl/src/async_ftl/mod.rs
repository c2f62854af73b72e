//! The `async` baseline of the SCFTL paper (§7.2): SCFTL's data path —
//! sector-level L2P/P2L, page-sized merge buffer, log-structured writes,
//! greedy GC — without checkpoints, two-phase GC or write bound
//! (`BlockDevice::epoch_remaining` is `None`). Every data sector carries
//! `(la, seq, crc)` in the OOB; recovery scans them (docs/FORMAT.md §5).
//! The engine is shared with the sync baseline: [`crate::logstruct`].
//!
//! # Async crash contract
//!
//! * `flush` makes everything written and trimmed before it durable.
//! * After a crash, each sector holds either its value at the last completed
//!   flush or some value written to it (or a trim) since then. Never a torn
//!   sector, never a value that was never written, never a value older than
//!   the last flush.
//!
//! # Why it holds
//!
//! * Recovery keeps, per sector, the CRC-valid candidate with the highest
//!   global sequence number (trims are candidates meaning "zeros"). A torn
//!   page fails its CRC, so a torn newer copy never beats an intact older one.
//! * Flush programs the merge buffer and syncs: the value at the flush is
//!   on flash with a sequence number above every older copy of the sector.
//! * That durable copy can only disappear by an erase, and GC issues an
//!   erase only after programming the merge buffer and syncing, so the
//!   sector's newest value (or its relocated copy, with the same sequence
//!   number) is durable first. An older stale copy can therefore never win.
//! * A relocated copy that survives while a newer write of the sector is
//!   lost holds the value current at relocation time: the value at the last
//!   flush or one written since — both allowed.
//! * A trim record keeps its sequence number through GC and stays on flash
//!   while any older copy of a trimmed sector might still be read back.
//!
//! An operation cut by an injected power loss returns the flash's
//! `PowerLoss` error; drop the object and [`AsyncFtl::open`] the device.

use crate::logstruct::LogConfig;

/// Configuration of the async FTL (shared with the sync FTL; see
/// [`LogConfig`] for the fields and their constraints).
pub type AsyncConfig = LogConfig;

crate::logstruct::baseline_ftl!(
    /// The async baseline FTL.
    AsyncFtl,
    crate::device::FtlKind::Async
);
