//! The `async` baseline of the SCFTL paper (§7.2): SCFTL's data path —
//! sector-level L2P/P2L, page-sized merge buffer, log-structured writes,
//! greedy GC — without checkpoints, two-phase GC or write bound
//! ([`BlockDevice::epoch_remaining`] is `None`). Every data sector carries
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

use flash::Flash;

use crate::device::{BlockDevice, DeviceStats, FtlError, FtlKind, Lba, Result};
use crate::label;
use crate::logstruct::{LogConfig, LogFtl, Mode};
use crate::mutant::Mutant;

/// Configuration of the async FTL (shared with the sync FTL; see
/// [`LogConfig`] for the fields and their constraints).
pub type AsyncConfig = LogConfig;

/// The async baseline FTL.
pub struct AsyncFtl<F: Flash> {
    inner: LogFtl<F>,
}

impl<F: Flash> AsyncFtl<F> {
    /// Formats `flash` as an async device.
    pub fn format(flash: F, config: AsyncConfig) -> Result<Self> {
        Self::format_with_mutant(flash, config, Mutant::None)
    }

    /// [`AsyncFtl::format`] with a seeded bug (crash-checker self-test).
    pub fn format_with_mutant(flash: F, config: AsyncConfig, mutant: Mutant) -> Result<Self> {
        let mode = Mode::new(FtlKind::Async, mutant)?;
        Ok(AsyncFtl {
            inner: LogFtl::format(flash, config, mode)?,
        })
    }

    /// Opens an async device: reads the label and recovers by scanning.
    pub fn open(flash: F) -> Result<Self> {
        Self::open_with_mutant(flash, Mutant::None)
    }

    /// [`AsyncFtl::open`] with a seeded bug (crash-checker self-test).
    pub fn open_with_mutant(mut flash: F, mutant: Mutant) -> Result<Self> {
        let mode = Mode::new(FtlKind::Async, mutant)?;
        let (kind, bytes) = label::read_label(&mut flash)?;
        if kind != FtlKind::Async {
            return Err(FtlError::WrongKind {
                found: kind,
                expected: FtlKind::Async,
            });
        }
        let config = AsyncConfig::decode(&bytes)?;
        Ok(AsyncFtl {
            inner: LogFtl::recover(flash, config, mode)?,
        })
    }

    pub fn config(&self) -> &AsyncConfig {
        self.inner.config()
    }

    /// Gives the flash device back (without flushing).
    pub fn into_flash(self) -> F {
        self.inner.into_flash()
    }
}

impl<F: Flash> BlockDevice for AsyncFtl<F> {
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
