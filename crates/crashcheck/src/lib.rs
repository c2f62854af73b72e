//! Crash-consistency checking for scftl's FTLs.
//!
//! What it is: reference models of the four crash contracts (`spec`: the
//! paper's Fig. 4 `SnapshotSpec`, `AsyncSpec`, `SyncSpec`, and OPTR's
//! request-ordered `PrefixSpec`), an executor that
//! runs scripts of operations, power cuts and recoveries against an FTL over
//! `flash::CrashFlash` and checks every read (`exec`), an explorer that
//! generates those scripts from one seed or enumerates every crash point
//! and in-flight outcome of a short workload, and shrinks failures
//! (`explore`), the FTLs it can drive (`target`, with the canary FTL in
//! `toy`), the file-system crash checker (`fs`: a reference tree, a seeded
//! system-call generator, a power cut at every flash command under the
//! `fs` crate's file system, recovery, mount, fsck and comparison with the
//! states its commit mode promises), the Rust transcription of the Agda
//! model P of SCFTL run as a second, differential oracle (`model`,
//! `--oracle model`). The `scftl crashtest` command line (arguments,
//! progress bar, summary) is the `scftl` binary's (crates/cli/src/crashtest).
//!
//! What it promises: a run is a pure function of its seed (and budget in
//! operations); every failure prints a shrunk script and the command that
//! replays it; a checker that cannot fail proves nothing, so every seeded
//! bug (`ftl::Mutant`, and the toy canaries in `toy`) has a test that
//! catches it.
//!
//! What it must never do: use unseeded randomness, or accept a state the
//! contract does not allow because an FTL returned an error.

pub mod concurrent;
pub mod data;
pub mod exec;
pub mod explore;
pub mod fs;
pub mod model;
pub mod spec;
pub mod target;
pub mod toy;

pub use exec::{CrashHow, Executor, RunConfig, Stats, Step, Violation};
pub use explore::{exhaustive, explore, ExhaustiveConfig, ExploreConfig, Report};
pub use spec::{AsyncSpec, ContractKind, PrefixSpec, SnapshotSpec, Spec, SyncSpec};
pub use target::Target;
