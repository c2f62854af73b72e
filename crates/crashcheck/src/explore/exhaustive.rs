//! Exhaustive mode: for a short seeded workload after a format, every crash
//! point (each counted flash command, the format's included, and "after
//! the last command") and every in-flight outcome at each (sampled, always
//! with none- and all-applied, where a point has more than `max_outcomes`),
//! each distinct crash state recovered and verified whole, and a power cut
//! at every command of each of those recoveries.
//!
//! Every state is reached by replaying a script from a fresh device, so a
//! failure is a script like any other and is shrunk and reported the same
//! way as in random mode.

use std::collections::HashSet;
use std::time::Duration;

use flash::CrashPolicy;
use rand::Rng;
use rand_pcg::Pcg64;

use super::random::{ExploreConfig, Gen, Workload};
use super::report::{ExhaustiveStats, Report, Reporter};
use crate::data::mix64;
use crate::exec::{CrashHow, Executor, RunConfig, Stats, Step, Violation};

/// Exhaustive-mode settings.
#[derive(Clone, Debug)]
pub struct ExhaustiveConfig {
    pub seed: u64,
    /// Workload operations after the format.
    pub ops: u64,
    pub workload: Workload,
    /// Crash points with more in-flight outcomes than this are sampled.
    pub max_outcomes: u64,
    /// Also cut power at every command of each recovery (one outcome each).
    pub recovery_crashes: bool,
    pub shrink_time: Duration,
}

impl ExhaustiveConfig {
    pub fn new(seed: u64, ops: u64) -> ExhaustiveConfig {
        ExhaustiveConfig {
            seed,
            ops,
            workload: Workload {
                flush: 20,
                ..Workload::default()
            },
            max_outcomes: 1024,
            recovery_crashes: true,
            shrink_time: Duration::from_secs(20),
        }
    }
}

/// Enumerates every crash point of a short seeded workload (format
/// included) and every in-flight outcome at each, recovering and verifying
/// every distinct crash state (all sectors, plus `check_invariants`).
pub fn exhaustive(
    run: &RunConfig,
    cfg: &ExhaustiveConfig,
    progress: &mut dyn FnMut(&Stats, Duration),
) -> Report {
    let (reporter, rng) = Reporter::begin(run, cfg.seed, cfg.shrink_time);
    let data_seed = reporter.data_seed();
    let ex = ExhaustiveStats {
        workload_ops: cfg.ops,
        ..ExhaustiveStats::default()
    };
    // The workload, generated against a crash-free run.
    let ecfg = ExploreConfig {
        workload: cfg.workload.clone(),
        crash_prob: 0.0,
        recovery_crash_prob: 0.0,
        format_crash_prob: 0.0,
        check_rate: 1.0,
        ..ExploreConfig::new(cfg.seed)
    };
    let exec = match Executor::replay(run, data_seed, &[]) {
        Ok(e) => e,
        Err(v) => return reporter.failed(Stats::default(), Some(ex), v, vec![], 0),
    };
    let mut g = Gen::new(&ecfg, rng, exec);
    let generated = (|| -> Result<(), Violation> {
        g.emit(Step::Format)?;
        while g.ops < cfg.ops {
            g.op()?;
        }
        Ok(())
    })();
    if let Err(v) = generated {
        let script = std::mem::take(&mut g.script);
        return reporter.failed(g.exec.stats(), Some(ex), v, script, g.ops);
    }
    let mut e = Enumeration {
        run,
        cfg,
        data_seed,
        commands: g.exec.flash_commands(),
        // The workload is counted once; every replay adds only its crash
        // and verification counters.
        total: g.exec.stats().workload(),
        workload: g.script,
        rng: g.rng,
        seen: HashSet::new(),
        ex,
    };
    let mut result = Ok(());
    for k in 0..=e.commands {
        result = e.crash_point(k);
        if result.is_err() {
            break;
        }
        progress(&e.total, reporter.elapsed());
    }
    match result {
        Ok(()) => reporter.passed(e.total, Some(e.ex)),
        Err((v, script)) => reporter.failed(e.total, Some(e.ex), v, script, cfg.ops),
    }
}

/// A violation and the script that shows it.
type Caught = (Violation, Vec<Step>);

/// The state of an enumeration over the crash points of one workload.
struct Enumeration<'a> {
    run: &'a RunConfig,
    cfg: &'a ExhaustiveConfig,
    data_seed: u64,
    /// The workload's script (format first) and its counted flash commands.
    workload: Vec<Step>,
    commands: u64,
    /// Draws the sampled outcomes of crash points that have too many.
    rng: Pcg64,
    /// Fingerprints of the crash states already verified.
    seen: HashSet<u64>,
    total: Stats,
    ex: ExhaustiveStats,
}

impl Enumeration<'_> {
    /// The recovery after each enumerated crash: verifies every sector and
    /// checks the FTL's invariants.
    const RECOVER: Step = Step::Recover {
        sample_seed: 0,
        invariants: true,
        full: true,
    };

    /// Power cut after `k` commands of the workload: every outcome (or a
    /// sample) of the pages in flight there.
    fn crash_point(&mut self, k: u64) -> Result<(), Caught> {
        self.ex.crash_points += 1;
        let mut prefix = vec![Step::Arm { commands: k }];
        prefix.extend(self.workload.iter().cloned());
        let probe = match Executor::replay(self.run, self.data_seed, &prefix) {
            Ok(e) => e,
            Err(v) => return Err((v, prefix)),
        };
        let n = probe.outcome_count();
        let indices: Vec<u64> = if n <= self.cfg.max_outcomes {
            (0..n).collect()
        } else {
            self.ex.points_sampled += 1;
            let mut set: Vec<u64> = vec![0, n - 1];
            while (set.len() as u64) < self.cfg.max_outcomes {
                set.push(self.rng.gen_range(0..n));
            }
            set.sort_unstable();
            set.dedup();
            set
        };
        let mut first = Some(probe);
        for i in indices {
            self.ex.outcomes_enumerated += 1;
            let e = match first.take() {
                Some(e) => e,
                None => Executor::replay(self.run, self.data_seed, &prefix)
                    .expect("replays like the probe"),
            };
            self.outcome(k, i, &prefix, e)?;
        }
        Ok(())
    }

    /// Outcome `i` at crash point `k`, on `e` (which ran `prefix`): skipped
    /// if its crash state was seen, else recovered and verified, then
    /// recovered again with a power cut at each command of that recovery.
    fn outcome(&mut self, k: u64, i: u64, prefix: &[Step], mut e: Executor) -> Result<(), Caught> {
        let crash = Step::Crash {
            how: CrashHow::Outcome(i),
            seed: mix64(k ^ mix64(i ^ self.data_seed)),
        };
        let mut script = prefix.to_vec();
        script.push(crash.clone());
        if let Err(v) = e.step(&crash) {
            return Err((v, script));
        }
        if !self.seen.insert(e.fingerprint()) {
            self.ex.duplicate_states_skipped += 1;
            return Ok(());
        }
        self.ex.distinct_crash_states += 1;
        script.push(Self::RECOVER);
        if let Err(v) = e.step(&Self::RECOVER) {
            return Err((v, script));
        }
        self.total += e.stats().checking();
        if !self.cfg.recovery_crashes {
            return Ok(());
        }
        for r in 0..e.last_recovery_commands() {
            let mut s2 = prefix.to_vec();
            s2.push(crash.clone());
            s2.push(Step::Arm { commands: r });
            s2.push(Self::RECOVER);
            s2.push(Step::Crash {
                how: CrashHow::Policy(CrashPolicy::Random),
                seed: mix64(k ^ mix64(i ^ mix64(r))),
            });
            s2.push(Self::RECOVER);
            match Executor::run(self.run, self.data_seed, &s2) {
                Ok(s) => {
                    self.ex.recovery_crash_states += 1;
                    self.total += s.checking();
                }
                Err(v) => return Err((v, s2)),
            }
        }
        Ok(())
    }
}
