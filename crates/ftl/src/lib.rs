//! Flash translation layers for scftl.
//!
//! What it is: the [`BlockDevice`] trait, the device label that says which
//! FTL a flash device holds, and the FTLs themselves — SCFTL (the
//! snapshot-consistent FTL of the SCFTL paper) and the async and sync
//! baselines of its evaluation.
//!
//! What it promises: each FTL keeps its documented crash contract over any
//! device that follows the [`flash::Flash`] contract, and no caller input
//! makes it panic.
//!
//! What it must never do: touch files, sockets or clocks. The frontends own
//! I/O and policy; this crate owns the on-flash format (docs/FORMAT.md).

pub mod device;
pub mod label;

pub use device::{
    check_range, check_request, BlockDevice, DeviceStats, FtlError, FtlKind, Lba, Result,
};
pub mod async_ftl;
pub mod logstruct;
pub mod mutant;
pub mod scftl;
pub mod sync_ftl;

pub use mutant::Mutant;
pub mod any;
pub use any::{AnyFtl, FormatOptions};
