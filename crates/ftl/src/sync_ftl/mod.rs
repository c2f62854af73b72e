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

use flash::Flash;

use crate::device::{BlockDevice, DeviceStats, FtlError, FtlKind, Lba, Result};
use crate::label;
use crate::logstruct::{LogConfig, LogFtl, Mode};
use crate::mutant::Mutant;

/// Configuration of the sync FTL (shared with the async FTL; see
/// [`LogConfig`]). The device also needs a battery-backed buffer of at least
/// one page of log entries plus one (checked at format and open).
pub type SyncConfig = LogConfig;

/// The sync baseline FTL.
pub struct SyncFtl<F: Flash> {
    inner: LogFtl<F>,
}

impl<F: Flash> SyncFtl<F> {
    /// Formats `flash` as a sync device.
    pub fn format(flash: F, config: SyncConfig) -> Result<Self> {
        Self::format_with_mutant(flash, config, Mutant::None)
    }

    /// [`SyncFtl::format`] with a seeded bug (crash-checker self-test).
    pub fn format_with_mutant(flash: F, config: SyncConfig, mutant: Mutant) -> Result<Self> {
        let mode = Mode::new(FtlKind::Sync, mutant)?;
        Ok(SyncFtl {
            inner: LogFtl::format(flash, config, mode)?,
        })
    }

    /// Opens a sync device: reads the label, scans the flash and replays the
    /// battery-backed log.
    pub fn open(flash: F) -> Result<Self> {
        Self::open_with_mutant(flash, Mutant::None)
    }

    /// [`SyncFtl::open`] with a seeded bug (crash-checker self-test).
    pub fn open_with_mutant(mut flash: F, mutant: Mutant) -> Result<Self> {
        let mode = Mode::new(FtlKind::Sync, mutant)?;
        let (kind, bytes) = label::read_label(&mut flash)?;
        if kind != FtlKind::Sync {
            return Err(FtlError::WrongKind {
                found: kind,
                expected: FtlKind::Sync,
            });
        }
        let config = SyncConfig::decode(&bytes)?;
        Ok(SyncFtl {
            inner: LogFtl::recover(flash, config, mode)?,
        })
    }

    pub fn config(&self) -> &SyncConfig {
        self.inner.config()
    }

    /// Gives the flash device back.
    pub fn into_flash(self) -> F {
        self.inner.into_flash()
    }
}

impl<F: Flash> BlockDevice for SyncFtl<F> {
    fn sector_size(&self) -> usize {
        self.inner.sector_size()
    }
    fn num_sectors(&self) -> u64 {
        self.inner.num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        self.inner.read(lba, buf)
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        self.inner.write(lba, data)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        self.inner.trim(lba, count)
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn epoch_remaining(&self) -> Option<u64> {
        None
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        self.inner.check_invariants()
    }
}
