//! What a campaign returns, and the one way a failure becomes a report:
//! [`Reporter::failed`] shrinks the failing script under the run's budget
//! and keeps it with the data seed that replays it. Random and exhaustive
//! campaigns build every report, passing or failing, through [`Reporter`].

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use super::shrink::shrink;
use crate::exec::{RunConfig, Stats, Step, Violation};

/// A failing run, ready to report.
#[derive(Clone, Debug)]
pub struct Failure {
    pub violation: Violation,
    /// Operations issued when it was detected (`--ops` to replay).
    pub ops: u64,
    /// The full failing script and its shrunk form.
    pub script: Vec<Step>,
    pub shrunk: Vec<Step>,
    /// The violation the shrunk script shows.
    pub shrunk_violation: Violation,
    /// Data seed of the run (derived from the seed).
    pub data_seed: u64,
}

/// Result of a campaign.
#[derive(Clone, Debug)]
pub struct Report {
    pub stats: Stats,
    pub elapsed: Duration,
    pub failure: Option<Failure>,
    /// Exhaustive mode only.
    pub exhaustive: Option<ExhaustiveStats>,
}

/// Counts of an exhaustive run, and the bounds it was exhaustive within.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExhaustiveStats {
    /// Operations per window.
    pub workload_ops: u64,
    /// Crash nesting depth.
    pub depth: u32,
    /// The bounds, in words.
    pub bounds: String,
    /// The windows (operation ranges and the events they hold).
    pub windows: Vec<String>,
    /// Events the workload never reached within its horizon.
    pub events_missing: Vec<String>,
    /// Per run: operations generated, operations in windows, and the kinds
    /// of operations the windows hold.
    pub coverage: Vec<String>,
    /// Level-1 crash points, and how their outcomes were enumerated.
    pub crash_points: u64,
    pub points_every_combination: u64,
    pub points_bounded: u64,
    pub outcomes_enumerated: u64,
    /// Crash points whose outcomes exceeded the user's cap and were sampled
    /// (always 0 without `--max-outcomes`).
    pub points_sampled: u64,
    pub distinct_crash_states: u64,
    pub duplicate_states_skipped: u64,
    /// Crash points and distinct crash states at nesting levels >= 2 (a
    /// crash inside the recovery of a crash, or right after it).
    pub nested_crash_points: u64,
    pub nested_crash_states: u64,
}

/// Builds a campaign's report. Holds what shrinking and replaying a failure
/// need: the run, its data seed, the shrinking budget, and the campaign's
/// start (elapsed time is the campaign's, shrinking excluded).
pub(super) struct Reporter<'a> {
    run: &'a RunConfig,
    data_seed: u64,
    shrink_time: Duration,
    start: Instant,
}

impl<'a> Reporter<'a> {
    /// Starts a campaign: its clock, and its generator seeded with `seed`,
    /// whose first draw is the data seed (so the seed fixes both).
    pub(super) fn begin(
        run: &'a RunConfig,
        seed: u64,
        shrink_time: Duration,
    ) -> (Reporter<'a>, Pcg64) {
        let start = Instant::now();
        let mut rng = Pcg64::seed_from_u64(seed);
        let data_seed = rng.gen();
        let reporter = Reporter {
            run,
            data_seed,
            shrink_time,
            start,
        };
        (reporter, rng)
    }

    /// The seed of the sector contents every script of the campaign writes.
    pub(super) fn data_seed(&self) -> u64 {
        self.data_seed
    }

    /// Time since the campaign started.
    pub(super) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// A campaign that found nothing.
    pub(super) fn passed(&self, stats: Stats, exhaustive: Option<ExhaustiveStats>) -> Report {
        Report {
            stats,
            elapsed: self.elapsed(),
            failure: None,
            exhaustive,
        }
    }

    /// A campaign that found `violation` in `script` after `ops` workload
    /// operations: the script is shrunk, and the report says how to replay
    /// both forms.
    pub(super) fn failed(
        &self,
        stats: Stats,
        exhaustive: Option<ExhaustiveStats>,
        violation: Violation,
        script: Vec<Step>,
        ops: u64,
    ) -> Report {
        let elapsed = self.elapsed();
        let (shrunk, shrunk_violation) = shrink(
            self.run,
            self.data_seed,
            &script,
            violation.clone(),
            self.shrink_time,
        );
        Report {
            stats,
            elapsed,
            failure: Some(Failure {
                violation,
                ops,
                script,
                shrunk,
                shrunk_violation,
                data_seed: self.data_seed,
            }),
            exhaustive,
        }
    }
}
