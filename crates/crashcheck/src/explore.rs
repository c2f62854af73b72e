//! The explorer: generates scripts from one seed (random mode), or
//! enumerates every crash point and in-flight outcome of a short workload
//! (exhaustive mode), runs them through the executor, and on a violation
//! shrinks the script and says how to replay it.
//!
//! Determinism: everything random comes from one `Pcg64` seeded with the
//! run's seed — the workload, the crash instants, the outcome policies and
//! their garbage bytes (via per-crash seeds), and the verification samples.
//! A time budget is only checked between cycles and consumes no randomness,
//! so `--seed S --ops N` replays a run that failed after N operations.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use flash::CrashPolicy;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use crate::data::mix64;
use crate::exec::{CrashHow, Executor, Phase, RunConfig, Stats, Step, Violation};

/// The workload mix.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Relative weights of the operations.
    pub write: u32,
    pub trim: u32,
    pub flush: u32,
    pub read: u32,
    /// Largest multi-sector request.
    pub max_sectors: u32,
    /// Fraction of the address space that is hot, and the probability that
    /// a request goes there.
    pub hot_fraction: f64,
    pub hot_prob: f64,
}

impl Default for Workload {
    fn default() -> Workload {
        Workload {
            write: 60,
            trim: 4,
            flush: 10,
            read: 10,
            max_sectors: 8,
            hot_fraction: 0.1,
            hot_prob: 0.6,
        }
    }
}

/// Random-mode settings.
#[derive(Clone, Debug)]
pub struct ExploreConfig {
    pub seed: u64,
    /// Stop after this many operations...
    pub ops: Option<u64>,
    /// ...or after this much time (checked between cycles).
    pub time: Option<Duration>,
    pub workload: Workload,
    /// Probability that a cycle of operations ends in a power cut armed at
    /// a random flash command (otherwise the device runs on).
    pub crash_prob: f64,
    /// Probability of arming a power cut inside a recovery / a format.
    pub recovery_crash_prob: f64,
    pub format_crash_prob: f64,
    /// Probability that a cycle issues no flush of its own (only those the
    /// epoch bound forces), so long epochs — tentative delta pages, GC
    /// inside an epoch — are exercised too.
    pub long_epoch_prob: f64,
    /// A verification reads every sector with probability
    /// `full_verify_sectors / num_sectors` (so full reads cost about this
    /// many sectors per crash on average), capped at 5%.
    pub full_verify_sectors: f64,
    /// Probability that a verification calls `check_invariants` (scaled
    /// down on devices of more than 65536 sectors, where it is costly).
    pub invariants_prob: f64,
    /// Shrink a failing script for at most this long.
    pub shrink_time: Duration,
}

impl ExploreConfig {
    pub fn new(seed: u64) -> ExploreConfig {
        ExploreConfig {
            seed,
            ops: None,
            time: None,
            workload: Workload::default(),
            crash_prob: 0.9,
            recovery_crash_prob: 0.25,
            format_crash_prob: 0.3,
            long_epoch_prob: 0.2,
            full_verify_sectors: 8.0,
            invariants_prob: 0.05,
            shrink_time: Duration::from_secs(20),
        }
    }
}

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

/// Counts of an exhaustive run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExhaustiveStats {
    pub workload_ops: u64,
    pub crash_points: u64,
    pub outcomes_enumerated: u64,
    /// Crash points whose outcomes were too many and were sampled.
    pub points_sampled: u64,
    pub distinct_crash_states: u64,
    pub duplicate_states_skipped: u64,
    pub recovery_crash_states: u64,
}

struct Gen<'a> {
    cfg: &'a ExploreConfig,
    rng: Pcg64,
    exec: Executor,
    script: Vec<Step>,
    ops: u64,
    cmds_per_op: f64,
    format_cmds: u64,
    recovery_cmds: u64,
    /// This cycle issues no voluntary flush.
    no_flush: bool,
}

impl Gen<'_> {
    fn emit(&mut self, s: Step) -> Result<(), Violation> {
        if s.is_op() {
            self.ops += 1;
        }
        self.script.push(s.clone());
        self.exec.step(&s)
    }

    fn policy(&mut self) -> CrashPolicy {
        match self.rng.gen_range(0..10) {
            0..=6 => CrashPolicy::Random,
            7 => CrashPolicy::AllGarbage,
            8 => CrashPolicy::AllApplied,
            _ => CrashPolicy::NoneApplied,
        }
    }

    fn crash(&mut self) -> Result<(), Violation> {
        let how = CrashHow::Policy(self.policy());
        let seed = self.rng.gen();
        self.emit(Step::Crash { how, seed })
    }

    /// Recovers until the device is up (or blank), cutting power inside
    /// recovery now and then.
    fn recover(&mut self) -> Result<(), Violation> {
        loop {
            if self.rng.gen_bool(self.cfg.recovery_crash_prob) {
                let n = self.rng.gen_range(0..=self.recovery_cmds.max(1));
                self.emit(Step::Arm { commands: n })?;
            }
            let step = Step::Recover {
                sample_seed: self.rng.gen(),
                invariants: self.rng.gen_bool(
                    self.cfg.invariants_prob
                        * (65536.0 / self.exec.num_sectors().max(1) as f64).min(1.0),
                ),
                full: self.rng.gen_bool(
                    (self.cfg.full_verify_sectors / self.exec.num_sectors().max(1) as f64)
                        .clamp(0.0, 0.05),
                ),
            };
            self.emit(step)?;
            match self.exec.phase() {
                Phase::Up => {
                    self.recovery_cmds = self.recovery_cmds.max(self.exec.last_recovery_commands());
                    return Ok(());
                }
                Phase::Fresh => return Ok(()),
                Phase::Down => self.crash()?,
            }
        }
    }

    /// Formats until a format completes or a crashed one turns out durable.
    fn format(&mut self) -> Result<(), Violation> {
        while self.exec.phase() == Phase::Fresh {
            let armed = self.rng.gen_bool(self.cfg.format_crash_prob);
            if armed {
                let n = self.rng.gen_range(0..=self.format_cmds);
                self.emit(Step::Arm { commands: n })?;
            }
            let before = self.exec.flash_commands();
            self.emit(Step::Format)?;
            if self.exec.phase() == Phase::Up {
                if !armed {
                    self.format_cmds = self.exec.flash_commands() - before;
                }
                break;
            }
            self.crash()?;
            self.recover()?;
        }
        Ok(())
    }

    fn pick_lba(&mut self, count: u32) -> u64 {
        let n = self.exec.num_sectors();
        let c = u64::from(count).min(n);
        let hot = ((n as f64 * self.cfg.workload.hot_fraction) as u64).max(c);
        let span = if self.rng.gen_bool(self.cfg.workload.hot_prob) {
            hot
        } else {
            n
        };
        self.rng.gen_range(0..=span - c)
    }

    fn op(&mut self) -> Result<(), Violation> {
        let w = &self.cfg.workload;
        let flush_w = if self.no_flush { 0 } else { w.flush };
        let total = w.write + w.trim + flush_w + w.read;
        let r = self.rng.gen_range(0..total.max(1));
        let max = w.max_sectors.max(1);
        let count = if self.rng.gen_bool(0.5) {
            1
        } else {
            self.rng.gen_range(1..=max)
        };
        let count = count.min(self.exec.num_sectors().min(u64::from(u32::MAX)) as u32);
        if r < w.write + w.trim {
            let trim = r >= w.write;
            let mut count = count;
            if let Some(rem) = self.exec.epoch_remaining() {
                if rem < u64::from(count) {
                    self.emit(Step::Flush)?;
                    if self.exec.phase() != Phase::Up {
                        return Ok(());
                    }
                    let rem = self.exec.epoch_remaining().unwrap_or(u64::MAX);
                    count = count.min(rem.min(u64::from(u32::MAX)) as u32);
                    if count == 0 {
                        return Ok(());
                    }
                }
            }
            let lba = self.pick_lba(count);
            if trim {
                self.emit(Step::Trim { lba, count })
            } else {
                self.emit(Step::Write { lba, count })
            }
        } else if r < w.write + w.trim + flush_w {
            self.emit(Step::Flush)
        } else {
            let lba = self.pick_lba(count);
            self.emit(Step::Read { lba, count })
        }
    }

    fn cycle_len(&mut self) -> u64 {
        // Mostly short (crash throughput), sometimes long (GC, full
        // epochs, aging the device between crashes).
        match self.rng.gen_range(0..100) {
            0..=84 => self.rng.gen_range(1..=4),
            85..=97 => self.rng.gen_range(8..=64),
            _ => self.rng.gen_range(64..=512),
        }
    }
}

/// Runs a random campaign. `progress` is called now and then with the
/// counters and the operations done so far.
pub fn explore(
    run: &RunConfig,
    cfg: &ExploreConfig,
    progress: &mut dyn FnMut(&Stats, Duration),
) -> Report {
    let start = Instant::now();
    let mut rng = Pcg64::seed_from_u64(cfg.seed);
    let data_seed = rng.gen();
    let exec = match Executor::new(run.clone(), data_seed) {
        Ok(e) => e,
        Err(m) => {
            let v = Violation {
                step: 0,
                message: m,
            };
            return Report {
                stats: Stats::default(),
                elapsed: start.elapsed(),
                failure: Some(Failure {
                    violation: v.clone(),
                    ops: 0,
                    script: vec![],
                    shrunk: vec![],
                    shrunk_violation: v,
                    data_seed,
                }),
                exhaustive: None,
            };
        }
    };
    let mut g = Gen {
        cfg,
        rng,
        exec,
        script: Vec::new(),
        ops: 0,
        cmds_per_op: 2.0,
        format_cmds: 64,
        recovery_cmds: 4,
        no_flush: false,
    };
    let ops_budget = cfg.ops.unwrap_or(u64::MAX);
    let mut cycles = 0u64;
    let result = (|| -> Result<(), Violation> {
        loop {
            if g.ops >= ops_budget || cfg.time.is_some_and(|t| start.elapsed() >= t) {
                return Ok(());
            }
            if g.exec.versions_left() < 1 << 20 {
                return Ok(());
            }
            g.format()?;
            if g.exec.phase() != Phase::Up {
                continue;
            }
            let len = g.cycle_len();
            g.no_flush = g.rng.gen_bool(cfg.long_epoch_prob);
            let crash = g.rng.gen_bool(cfg.crash_prob);
            if crash {
                let est = (g.cmds_per_op * len as f64).ceil() as u64 + 1;
                let n = g.rng.gen_range(0..=est);
                g.emit(Step::Arm { commands: n })?;
            }
            let (c0, o0) = (g.exec.flash_commands(), g.ops);
            for _ in 0..len {
                if g.ops >= ops_budget || g.exec.phase() != Phase::Up {
                    break;
                }
                g.op()?;
            }
            if g.exec.phase() == Phase::Up && g.ops > o0 {
                let per = (g.exec.flash_commands() - c0) as f64 / (g.ops - o0) as f64;
                g.cmds_per_op = 0.8 * g.cmds_per_op + 0.2 * per.max(0.05);
            }
            if crash || g.exec.phase() != Phase::Up {
                g.crash()?;
                g.recover()?;
            }
            cycles += 1;
            if cycles.is_multiple_of(32) {
                progress(&g.exec.stats(), start.elapsed());
            }
        }
    })();
    let stats = g.exec.stats();
    let failure = result.err().map(|v| {
        let mut script = std::mem::take(&mut g.script);
        script.truncate(v.step + 1);
        let (shrunk, sv) = shrink(run, data_seed, &script, v.clone(), cfg.shrink_time);
        Failure {
            violation: v,
            ops: g.ops,
            script,
            shrunk,
            shrunk_violation: sv,
            data_seed,
        }
    });
    progress(&stats, start.elapsed());
    Report {
        stats,
        elapsed: start.elapsed(),
        failure,
        exhaustive: None,
    }
}

/// Shrinks a failing script: drop whole crash cycles, then runs of
/// operations, then move power cuts earlier; keep every change that still
/// fails (with any violation). Bounded by `budget`.
pub fn shrink(
    run: &RunConfig,
    data_seed: u64,
    script: &[Step],
    violation: Violation,
    budget: Duration,
) -> (Vec<Step>, Violation) {
    let start = Instant::now();
    let mut best = script.to_vec();
    let mut best_v = violation;
    let fails = |s: &[Step]| Executor::run(run, data_seed, s).err();
    let try_candidate = |cand: Vec<Step>, best: &mut Vec<Step>, best_v: &mut Violation| {
        if let Some(v) = fails(&cand) {
            let mut c = cand;
            c.truncate(v.step + 1);
            *best = c;
            *best_v = v;
            true
        } else {
            false
        }
    };
    let out_of_time = |start: &Instant| start.elapsed() >= budget;
    let mut progress = true;
    while progress && !out_of_time(&start) {
        progress = false;
        // 1. Remove chunks of steps that form whole cycles: cut at indices
        //    right after a Recover step (chunk = steps between cut points).
        let cuts: Vec<usize> = std::iter::once(0)
            .chain(
                best.iter()
                    .enumerate()
                    .filter(|(_, s)| matches!(s, Step::Recover { .. }))
                    .map(|(i, _)| i + 1),
            )
            .collect();
        // ddmin over cycle ranges (a candidate without a completed format
        // simply does not fail, and is rejected).
        let ncy = cuts.len();
        let mut chunk = (ncy / 2).max(1);
        while chunk >= 1 && !out_of_time(&start) {
            let mut i = 0;
            let mut removed_any = false;
            while i + chunk < ncy && !out_of_time(&start) {
                let (a, b) = (cuts[i], cuts[(i + chunk).min(ncy - 1)]);
                if a < b {
                    let mut cand = best[..a].to_vec();
                    cand.extend_from_slice(&best[b..]);
                    if try_candidate(cand, &mut best, &mut best_v) {
                        removed_any = true;
                        progress = true;
                        break;
                    }
                }
                i += chunk;
            }
            if removed_any {
                break;
            }
            chunk /= 2;
        }
        if progress {
            continue;
        }
        // 2. Remove runs of operations (ddmin-style, halving chunk sizes).
        let ops: Vec<usize> = best
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_op())
            .map(|(i, _)| i)
            .collect();
        let mut chunk = (ops.len() / 2).max(1);
        'outer: while chunk >= 1 && !ops.is_empty() && !out_of_time(&start) {
            for w in ops.chunks(chunk) {
                let drop: HashSet<usize> = w.iter().copied().collect();
                let cand: Vec<Step> = best
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !drop.contains(i))
                    .map(|(_, s)| s.clone())
                    .collect();
                if try_candidate(cand, &mut best, &mut best_v) {
                    progress = true;
                    break 'outer;
                }
                if out_of_time(&start) {
                    break 'outer;
                }
            }
            chunk /= 2;
        }
        if progress {
            continue;
        }
        // 3. Remove single steps of any kind (power cuts, crashes,
        //    recoveries, a format that a later one repeats).
        for i in (0..best.len()).rev() {
            if out_of_time(&start) {
                break;
            }
            if i >= best.len() {
                continue;
            }
            let mut cand = best.clone();
            cand.remove(i);
            if try_candidate(cand, &mut best, &mut best_v) {
                progress = true;
            }
        }
        if progress {
            continue;
        }
        // 4. Move power cuts earlier and make multi-sector requests single.
        for i in 0..best.len() {
            if out_of_time(&start) {
                break;
            }
            let smaller: Vec<Step> = match best[i] {
                Step::Arm { commands } if commands > 0 => vec![0, commands / 2, commands - 1]
                    .into_iter()
                    .map(|c| Step::Arm { commands: c })
                    .collect(),
                Step::Write { lba, count } if count > 1 => vec![Step::Write { lba, count: 1 }],
                Step::Trim { lba, count } if count > 1 => vec![Step::Trim { lba, count: 1 }],
                Step::Read { lba, count } if count > 1 => vec![Step::Read { lba, count: 1 }],
                Step::Recover {
                    sample_seed,
                    invariants: true,
                    full,
                } => vec![Step::Recover {
                    sample_seed,
                    invariants: false,
                    full,
                }],
                _ => vec![],
            };
            for s in smaller {
                let mut cand = best.clone();
                cand[i] = s;
                if try_candidate(cand, &mut best, &mut best_v) {
                    progress = true;
                    break;
                }
            }
        }
    }
    (best, best_v)
}

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
    let start = Instant::now();
    let mut rng = Pcg64::seed_from_u64(cfg.seed);
    let data_seed: u64 = rng.gen();
    let mut ex = ExhaustiveStats {
        workload_ops: cfg.ops,
        ..ExhaustiveStats::default()
    };
    let mut total = Stats::default();
    let fail = |v: Violation, script: Vec<Step>, ops: u64| {
        let (shrunk, sv) = shrink(run, data_seed, &script, v.clone(), cfg.shrink_time);
        Failure {
            violation: v,
            ops,
            script,
            shrunk,
            shrunk_violation: sv,
            data_seed,
        }
    };
    // The workload, generated against a crash-free run.
    let ecfg = ExploreConfig {
        workload: cfg.workload.clone(),
        crash_prob: 0.0,
        recovery_crash_prob: 0.0,
        format_crash_prob: 0.0,
        ..ExploreConfig::new(cfg.seed)
    };
    let exec = match Executor::new(run.clone(), data_seed) {
        Ok(e) => e,
        Err(m) => {
            let v = Violation {
                step: 0,
                message: m,
            };
            return Report {
                stats: total,
                elapsed: start.elapsed(),
                failure: Some(fail(v, vec![], 0)),
                exhaustive: Some(ex),
            };
        }
    };
    let mut g = Gen {
        cfg: &ecfg,
        rng,
        exec,
        script: Vec::new(),
        ops: 0,
        cmds_per_op: 2.0,
        format_cmds: 0,
        recovery_cmds: 0,
        no_flush: false,
    };
    let gen = (|| -> Result<(), Violation> {
        g.emit(Step::Format)?;
        while g.ops < cfg.ops {
            g.op()?;
        }
        Ok(())
    })();
    if let Err(v) = gen {
        let script = g.script.clone();
        return Report {
            stats: g.exec.stats(),
            elapsed: start.elapsed(),
            failure: Some(fail(v, script, g.ops)),
            exhaustive: Some(ex),
        };
    }
    let workload = g.script.clone();
    let commands = g.exec.flash_commands();
    let mut rng = g.rng;
    let mut seen = HashSet::new();
    let add = |total: &mut Stats, s: &Stats| {
        total.crashes += s.crashes;
        total.crashes_during_format += s.crashes_during_format;
        total.crashes_during_recovery += s.crashes_during_recovery;
        total.crash_states_checked += s.crash_states_checked;
        total.sectors_compared += s.sectors_compared;
        total.invariant_checks += s.invariant_checks;
        total.flash_commands += s.flash_commands;
    };
    let base = g.exec.stats();
    total.operations = base.operations;
    total.writes = base.writes;
    total.sectors_written = base.sectors_written;
    total.trims = base.trims;
    total.reads = base.reads;
    total.flushes = base.flushes;
    let recover = Step::Recover {
        sample_seed: 0,
        invariants: true,
        full: true,
    };
    for k in 0..=commands {
        ex.crash_points += 1;
        let mut prefix = vec![Step::Arm { commands: k }];
        prefix.extend(workload.iter().cloned());
        let probe = match run_prefix(run, data_seed, &prefix) {
            Ok(e) => e,
            Err(v) => {
                return Report {
                    stats: total,
                    elapsed: start.elapsed(),
                    failure: Some(fail(v, prefix, cfg.ops)),
                    exhaustive: Some(ex),
                }
            }
        };
        let n = probe.outcome_count();
        let indices: Vec<u64> = if n <= cfg.max_outcomes {
            (0..n).collect()
        } else {
            ex.points_sampled += 1;
            let mut set: Vec<u64> = vec![0, n - 1];
            while (set.len() as u64) < cfg.max_outcomes {
                set.push(rng.gen_range(0..n));
            }
            set.sort_unstable();
            set.dedup();
            set
        };
        let mut first = Some(probe);
        for i in indices {
            ex.outcomes_enumerated += 1;
            let mut e = match first.take() {
                Some(e) => e,
                None => run_prefix(run, data_seed, &prefix).expect("replays like the probe"),
            };
            let crash = Step::Crash {
                how: CrashHow::Outcome(i),
                seed: mix64(k ^ mix64(i ^ data_seed)),
            };
            let mut script = prefix.clone();
            script.push(crash.clone());
            if let Err(v) = e.step(&crash) {
                return Report {
                    stats: total,
                    elapsed: start.elapsed(),
                    failure: Some(fail(v, script, cfg.ops)),
                    exhaustive: Some(ex),
                };
            }
            if !seen.insert(e.fingerprint()) {
                ex.duplicate_states_skipped += 1;
                continue;
            }
            ex.distinct_crash_states += 1;
            script.push(recover.clone());
            if let Err(v) = e.step(&recover) {
                return Report {
                    stats: total,
                    elapsed: start.elapsed(),
                    failure: Some(fail(v, script, cfg.ops)),
                    exhaustive: Some(ex),
                };
            }
            let rcmds = e.last_recovery_commands();
            add(&mut total, &e.stats());
            if cfg.recovery_crashes {
                for r in 0..rcmds {
                    let mut s2 = prefix.clone();
                    s2.push(crash.clone());
                    s2.push(Step::Arm { commands: r });
                    s2.push(recover.clone());
                    s2.push(Step::Crash {
                        how: CrashHow::Policy(CrashPolicy::Random),
                        seed: mix64(k ^ mix64(i ^ mix64(r))),
                    });
                    s2.push(recover.clone());
                    match Executor::run(run, data_seed, &s2) {
                        Ok(s) => {
                            ex.recovery_crash_states += 1;
                            add(&mut total, &s);
                        }
                        Err(v) => {
                            return Report {
                                stats: total,
                                elapsed: start.elapsed(),
                                failure: Some(fail(v, s2, cfg.ops)),
                                exhaustive: Some(ex),
                            }
                        }
                    }
                }
            }
        }
        progress(&total, start.elapsed());
    }
    Report {
        stats: total,
        elapsed: start.elapsed(),
        failure: None,
        exhaustive: Some(ex),
    }
}

fn run_prefix(run: &RunConfig, data_seed: u64, prefix: &[Step]) -> Result<Executor, Violation> {
    let mut e = Executor::new(run.clone(), data_seed).map_err(|m| Violation {
        step: 0,
        message: m,
    })?;
    for s in prefix {
        e.step(s)?;
    }
    Ok(e)
}
