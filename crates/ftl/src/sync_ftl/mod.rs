//! The `sync` baseline of the SCFTL paper (§7.2): the async baseline's data
//! path ([`crate::logstruct`]) where every flash command is followed by a
//! sync before the call returns, and the page-sized merge buffer is backed
//! by the device's battery-backed buffer (`Flash::nvram_*`): every change to
//! it is appended to a checksummed log there (docs/FORMAT.md §6) before the
//! call returns. `flush` has nothing left to do (it is still counted).
//!
//! # Sync crash contract
//!
//! * Every completed write and trim is durable.
//! * A write or trim interrupted by a crash leaves each of its sectors
//!   either with its old or with its new content (per sector; no torn
//!   sector, no value never written).
//!
//! # Why it holds
//!
//! * A write returns only after its log entry is in the battery-backed
//!   buffer (one atomic `nvram_write` each; a missing entry is the old
//!   value). Pages are synced before the log is reset, so a buffered sector
//!   is always on flash or in the log, and recovery's highest-sequence-wins
//!   rule over flash and log picks the newest completed value.
//! * GC relocates through the same logged buffer, so relocated data is
//!   durable before the victim is erased (and the erase is synced).
//! * Recovery programs the log's winning entries to flash and syncs before
//!   resetting the log, so a crash during recovery loses nothing either.
//!
//! An operation cut by an injected power loss returns the flash's
//! `PowerLoss` error; drop the object and [`SyncFtl::open`] the device.

use crate::logstruct::LogConfig;

/// Configuration of the sync FTL (shared with the async FTL; see
/// [`LogConfig`]). The device also needs a battery-backed buffer of at least
/// one page of log entries plus one (checked at format and open).
pub type SyncConfig = LogConfig;

crate::logstruct::baseline_ftl!(
    /// The sync baseline FTL.
    SyncFtl,
    crate::device::FtlKind::Sync
);
