//! The explorer: generates scripts from one seed (random mode), or
//! enumerates every crash point and in-flight outcome of a short workload
//! (exhaustive mode), runs them through the executor, and on a violation
//! shrinks the script and says how to replay it.
//!
//! One job per file: `random` (the workload generator and the seeded
//! random campaign), `exhaustive` (every crash point and outcome of a short
//! workload), `shrink` (minimising a failing script), `report` (what a
//! campaign returns, and the one place a failure becomes a report).
//!
//! Determinism: everything random comes from one `Pcg64` seeded with the
//! run's seed — the workload, the crash instants, the outcome policies and
//! their garbage bytes (via per-crash seeds), and the verification samples.
//! A time budget is only checked between cycles and consumes no randomness,
//! so `--seed S --ops N` replays a run that failed after N operations.

mod exhaustive;
mod random;
mod report;
mod shrink;

pub use exhaustive::{exhaustive, ExhaustiveConfig};
pub use random::{explore, ExploreConfig, Workload};
pub use report::{ExhaustiveStats, Failure, Report};
pub use shrink::{shrink, shrink_tail};
