//! Reference models: what a device may return after any history of
//! operations and crashes, one model per crash contract.
//!
//! Sector contents are versions (see `crate::data`): 0 reads as zeros (never
//! written or trimmed), any other number names one write. A model is driven
//! by the explorer with the operations that completed, the operation a power
//! cut interrupted, and successful recoveries; it answers whether a value
//! read back is allowed ([`Spec::check`]), and which sectors must be read
//! after a recovery to settle every open choice ([`Spec::must_check`]).
//!
//! An epoch barrier (`BlockDevice::epoch_barrier`) ends an epoch in order
//! without durability: every contract but the snapshot one treats it as
//! promising nothing (a no-op of the model); the snapshot contract lets a
//! crash fall back to the state at any completed barrier since the last
//! completed flush, never to a mixture.
//!
//! Models are sparse (only sectors that ever held a non-zero version are
//! stored), so their cost follows the workload, not the device size.
//!
//! This file owns the [`Spec`] trait and the contract names; `common` owns
//! what the models share (the sparse version map, and `PerSectorSpec`,
//! which is the async and sync models but for their rule); each other file
//! owns one contract (`prefix`: OPTR's request-ordered one).

mod asynchronous;
mod common;
mod prefix;
mod snapshot;
mod synchronous;

pub use asynchronous::{AsyncRule, AsyncSpec};
pub use common::{PerSectorSpec, SectorRule};
pub use prefix::PrefixSpec;
pub use snapshot::SnapshotSpec;
pub use synchronous::{SyncRule, SyncSpec};

use crate::data::Observed;

/// The crash contracts the checker knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContractKind {
    /// Paper Fig. 4: after a crash, exactly the contents at the last
    /// completed flush (a crashed flush: that state or the one it was making
    /// durable), never a mixture.
    Snapshot,
    /// Flushed data durable; a sector written since the last flush holds its
    /// value at that flush or any value written since.
    Async,
    /// Every completed write durable; an interrupted write leaves each of
    /// its sectors old or new.
    Sync,
    /// OPTR's order-preserving contract: after a crash, the state after
    /// some prefix of the acknowledged requests that holds everything
    /// before the last completed flush; each request all or nothing.
    Prefix,
}

impl ContractKind {
    pub const ALL: [ContractKind; 4] = [
        ContractKind::Snapshot,
        ContractKind::Async,
        ContractKind::Sync,
        ContractKind::Prefix,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ContractKind::Snapshot => "snapshot",
            ContractKind::Async => "async",
            ContractKind::Sync => "sync",
            ContractKind::Prefix => "prefix",
        }
    }

    pub fn parse(s: &str) -> Option<ContractKind> {
        ContractKind::ALL.into_iter().find(|c| c.name() == s)
    }

    /// A fresh model (every sector zero) of `num_sectors` sectors.
    pub fn new_spec(self, num_sectors: u64) -> Box<dyn Spec> {
        match self {
            ContractKind::Snapshot => Box::new(SnapshotSpec::new(num_sectors)),
            ContractKind::Async => Box::new(AsyncSpec::new(num_sectors)),
            ContractKind::Sync => Box::new(SyncSpec::new(num_sectors)),
            ContractKind::Prefix => Box::new(PrefixSpec::new(num_sectors)),
        }
    }
}

impl std::fmt::Display for ContractKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The operation a power cut interrupted.
#[derive(Clone, Copy, Debug)]
pub enum Interrupted<'a> {
    /// A power cut between operations (or during a read).
    Nothing,
    /// A write (trim: versions all 0) of `versions.len()` sectors at `lba`.
    Write { lba: u64, versions: &'a [u32] },
    /// A flush.
    Flush,
    /// An epoch barrier.
    Barrier,
    /// A recovery (the device was not usable yet).
    Recovery,
}

/// A reference model of one crash contract.
pub trait Spec {
    /// The contract this models.
    fn kind(&self) -> ContractKind;

    /// Number of sectors.
    fn num_sectors(&self) -> u64;

    /// Forgets everything: a freshly formatted device (all zeros).
    fn reset(&mut self);

    /// A write (or trim: versions 0) that completed.
    fn write(&mut self, lba: u64, versions: &[u32]);

    /// A flush that completed.
    fn flush(&mut self);

    /// An epoch barrier that completed. It promises no durability, so by
    /// default the model does not change; the snapshot contract overrides
    /// it (a crash may return to the barrier's state).
    fn barrier(&mut self) {}

    /// Power was cut during `op` (the device is down until a recovery).
    fn interrupted(&mut self, op: Interrupted<'_>);

    /// A recovery completed; the device is readable again. Reads that follow
    /// settle the model's open choices (see [`Spec::must_check`]).
    fn recovered(&mut self);

    /// Checks that sector `lba` may read as `got` now; a check may pin an
    /// open choice (later reads must agree with it). On failure, says why.
    fn check(&mut self, lba: u64, got: Observed) -> Result<(), String>;

    /// Called after the post-recovery reads: fails if the reads together are
    /// not one allowed state (e.g. a mixture of two snapshots).
    fn end_verify(&mut self) -> Result<(), String>;

    /// Sectors whose allowed value is still open (must be read after each
    /// recovery for the model to settle).
    fn must_check(&self, out: &mut Vec<u64>);

    /// The value the model would read now if nothing is open, for messages
    /// and samples; `None` when it is one of several.
    fn expected(&self, lba: u64) -> Option<u32>;

    /// A digest of the model state (to tell crash states apart).
    fn digest(&self) -> u64;

    /// A copy of the model (exhaustive mode resumes runs from snapshots).
    fn boxed_clone(&self) -> Box<dyn Spec>;
}
