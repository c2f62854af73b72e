//! Flash translation layers for scftl.
//!
//! What it is: the [`BlockDevice`] trait, the device label that says which
//! FTL a flash device holds, and the FTLs themselves — SCFTL (the
//! snapshot-consistent FTL of the SCFTL paper), the async and sync
//! baselines of its evaluation, and OPTR (the order-preserving FTL of the
//! OPTR paper).
//!
//! What it promises: each FTL keeps its documented crash contract over any
//! device that follows the [`flash::Flash`] contract, and no caller input
//! makes it panic.
//!
//! What it must never do: touch files, sockets or clocks. The frontends own
//! I/O and policy; this crate owns the on-flash format (docs/FORMAT.md).

pub mod codec;
pub mod device;
pub mod label;

/// The 32-bit sector address that names no sector: an unmapped L2P entry
/// (in RAM, and on flash in SCFTL's L2P pages and trim pairs, docs/FORMAT.md
/// §4.1), and the reverse map's "nothing here". Every FTL keeps its
/// physical and logical addresses below it.
pub const UNMAPPED: u32 = u32::MAX;

/// Whether `check_invariants` runs the checks that need checker-only state
/// (the `ghost` feature: SCFTL's and OPTR's ghost copies of the stable
/// mapping) in this build; they also need debug assertions, which the
/// release profile keeps and `bench-fast` drops.
pub const GHOST_CHECKS: bool = cfg!(all(debug_assertions, feature = "ghost"));

/// Whether this build checks invariants at all (`check_invariants` and the
/// data path's debug assertions): debug assertions on.
pub const INVARIANT_CHECKS: bool = cfg!(debug_assertions);

pub use device::{
    check_range, check_request, mapped_runs, BlockDevice, DeviceStats, FlushStep, FlushTicket,
    FtlError, FtlKind, Lba, Result,
};
pub mod shared;
mod sync;
pub use shared::{SharedCounts, SharedDevice, SharedMutant};
pub mod async_ftl;
pub mod logstruct;
pub mod mutant;
pub mod optr;
pub mod refine;
pub mod scftl;
pub mod sync_ftl;
pub mod wear;

pub use mutant::Mutant;
pub use wear::{WearPolicy, WearStats};
pub mod any;
pub use any::{AnyFtl, FormatOptions};
