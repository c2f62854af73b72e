//! The FTLs the checker can drive, and the one shape they share: format or
//! open a device over the crash-injecting flash, with an optional seeded
//! bug. This file owns the list of targets (`--ftl` names): the real FTLs
//! of crates/ftl, each with its default configuration for the geometry,
//! and the checker's own toy FTL with its canaries (`crate::toy`).

use flash::{CrashFlash, Flash, MemFlash, SharedFlash};
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::sync_ftl::{SyncConfig, SyncFtl};
use ftl::{BlockDevice, Mutant};

use crate::spec::ContractKind;
use crate::toy::{ToyBug, ToyFtl};

/// The device stack under test: RAM flash, the power-loss layer, and a
/// shared handle so the harness keeps access while the FTL owns it.
pub type Dev = SharedFlash<CrashFlash<MemFlash>>;

/// Formats or opens an FTL over a device.
pub type Opener = fn(Dev, Mutant) -> ftl::Result<Box<dyn BlockDevice>>;

/// An FTL the explorer can test.
#[derive(Clone, Copy)]
pub struct Target {
    /// Name on the command line (`--ftl`).
    pub name: &'static str,
    /// The contract it promises (the default `--contract`).
    pub contract: ContractKind,
    pub format: Opener,
    pub open: Opener,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Target({})", self.name)
    }
}

/// A real FTL: formatted with its default configuration for the geometry,
/// built with the mutant the run asks for.
macro_rules! real_target {
    ($name:literal, $contract:expr, $ftl:ident, $config:ident) => {
        Target {
            name: $name,
            contract: $contract,
            format: |d, m| {
                let cfg = $config::default_for(d.geometry());
                Ok(Box::new($ftl::format_with_mutant(d, cfg, m)?))
            },
            open: |d, m| Ok(Box::new($ftl::open_with_mutant(d, m)?)),
        }
    };
}

/// The checker's toy FTL with one of its bugs (mutants do not apply).
macro_rules! toy_target {
    ($name:literal, $bug:expr) => {
        Target {
            name: $name,
            contract: ContractKind::Snapshot,
            format: |d, _| Ok(Box::new(ToyFtl::format(d, $bug)?)),
            open: |d, _| Ok(Box::new(ToyFtl::open(d, $bug)?)),
        }
    };
}

/// The real FTLs (see crates/ftl).
pub const REAL_TARGETS: [Target; 3] = [
    real_target!("scftl", ContractKind::Snapshot, Scftl, ScftlConfig),
    real_target!("async", ContractKind::Async, AsyncFtl, AsyncConfig),
    real_target!("sync", ContractKind::Sync, SyncFtl, SyncConfig),
];

/// The checker's own toy FTL and its canaries (see `crate::toy`).
pub const TOY_TARGETS: [Target; 4] = [
    toy_target!("toy", ToyBug::None),
    toy_target!("toy-overwrite-live", ToyBug::OverwriteLive),
    toy_target!("toy-trust-unsynced-commit", ToyBug::TrustUnsyncedCommit),
    toy_target!("toy-skip-sync-only", ToyBug::SkipSyncOnly),
];

/// The real FTLs (see crates/ftl).
pub fn real_targets() -> Vec<Target> {
    REAL_TARGETS.to_vec()
}

/// Every target, real ones first.
pub fn all_targets() -> Vec<Target> {
    let mut v = real_targets();
    v.extend(TOY_TARGETS);
    v
}

/// A target by name.
pub fn by_name(name: &str) -> Option<Target> {
    all_targets().into_iter().find(|t| t.name == name)
}

/// Names accepted by `--ftl`.
pub fn names() -> Vec<&'static str> {
    all_targets().iter().map(|t| t.name).collect()
}
