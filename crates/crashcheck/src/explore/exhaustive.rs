//! Exhaustive mode: every crash point of a few short windows of one seeded
//! workload, every outcome class of the pages in flight at each (within
//! the bounds below, never sampled unless the user caps it), each distinct
//! crash state recovered and verified whole, and nested crashes: a power
//! cut at every command of each recovery and of a short continuation after
//! it, to `depth` levels.
//!
//! Windows. One crash-free run of the workload (format, then up to
//! `horizon` operations) is generated first, noting which operations do
//! something a crash could break: the format, the first commit, the first
//! tentative delta page, the first garbage collection (with relocations;
//! later ones: the long-epoch run below), the first full
//! checkpoint, the first refused request, the first trim of written
//! sectors and the first commit after one; on SCFTL also the first
//! in-page commit (docs/FORMAT.md §4.8). A
//! window is the `ops` operations ending with such an operation (the first
//! window also holds the format). The operations before a window replay
//! crash-free. A second crash-free run, the fresh-region run, adds one
//! window: from a new format, writes only, each cut to what the epoch has
//! left (no flush of its own), until the first tentative delta page. Its
//! epoch fills to the bound while SCFTL's delta region is nearly empty, so
//! the recovery after a crash there does not compact the region, and
//! whatever the crashed epoch's tentative pages leave behind stays
//! visible to the next commit and recovery. (In the main workload the
//! first tentative page can come when the region is nearly full.)
//!
//! A third crash-free run, the long-epoch run, opens windows at later GCs.
//! The main workload flushes every few operations, so its first GC (the
//! only one it windows) runs with little acknowledged data not yet
//! durable and few log pages written since the last checkpoint; a GC that
//! must cope with much of either (a write-back cache full of dirty
//! sectors, a request partly written back, segments written after the
//! latest checkpoint with stale pages in them) may come only much later,
//! or never within the horizon. The long-epoch run is the main mix with
//! voluntary flushes rare (`long_epoch_flush`), from a new format, and
//! each of its first `long_epoch_gcs` GCs with relocations gets a window
//! of that one operation. Nothing in it is keyed to an FTL: it places
//! windows by the device's own GC counter, as the main run does. These
//! windows are light, to keep their cost to about a percent of the run:
//! every crash point, but at each the in-order cuts with the next command
//! torn (as nested levels do), and no nested crashes (the recovery is
//! still verified whole and continued). The main run's windows keep the
//! full treatment. Light windows are enumerated first, so a bug they catch
//! is reported without paying for the full windows.
//!
//! Two more runs (`barrier_and_failure_runs`). The barrier run ends epochs
//! by barriers, durable flushes rare, and windows its first barrier that
//! wrote, its first flush after barriers and (SCFTL) its first flush after
//! exactly one barrier that committed in a data page: with one epoch
//! unsynced, the sync before such a commit is the only thing that keeps
//! the commit from outliving the epoch it proves durable, and only a
//! reordering (an outcome off the in-order cuts) shows a missing one, so
//! that window gets the full treatment (the others are light). The failure run aims media
//! failures at flush and write programs and windows each of its first
//! `failure_windows` failures with the operations after it (a failure
//! mishandled shows later, when the page is read or relocated), lightly.
//! With spare superblocks (`RunConfig::target.spare`), the failure-pair
//! run makes failures in pairs (`Gen::pair_failures`): a write's program
//! while GC victims wait for the epoch's end and the pool of free and
//! erasable superblocks is down to one, then the first program of the
//! flush or barrier that ends that epoch, which then must find a
//! superblock with nothing in the pool but the epoch's own victims. It
//! replaces the device after each pair (a pair uses up the spares) and
//! windows each of its first `failure_windows` pairs like the failure run.
//!
//! Outcomes at a crash point (`CrashFlash::page_classes`): each touched page
//! has its distinct images plus two torn classes, `Prefix` and `Garbage`
//! (why these cover what recovery can tell apart: `flash::PageClass`).
//! When the product over the touched pages is at most `full_product_max`,
//! every combination is checked. Otherwise the outcomes are the in-order
//! cuts (the first j in-flight commands applied, j = 0..=n), each with the
//! next command torn, and every outcome within `deviations` pages of an
//! in-order cut (a page left older or newer than the cut, or torn: the
//! reordering a volatile write cache allows). Outcomes are deduplicated
//! before replay (by class vector) and after (by the fingerprint of every
//! page, nvram and the model).
//!
//! Nesting. After a level-1 crash state recovers, a continuation runs: a
//! request one sector past the epoch bound (if the device has one), a
//! write, a flush, each followed by `check_invariants`. Level 2 cuts power
//! at every command of the recovery (also at its end, which is how a
//! recovery that writes nothing is cut) and of the continuation, with the
//! in-order outcomes and the torn next command; and so on to `depth`.
//!
//! Every state is reached by replaying a script from a fresh device, so a
//! failure is a script like any other and is shrunk and reported the same
//! way as in random mode.

use std::collections::HashSet;
use std::time::Duration;

use flash::PageClass;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::random::{ExploreConfig, Gen, Workload};
use super::report::{ExhaustiveStats, Report, Reporter};
use crate::data::mix64;
use crate::exec::{CrashHow, Executor, Phase, RunConfig, Stats, Step, Violation};

/// Exhaustive-mode settings (the bounds the summary states).
#[derive(Clone, Debug)]
pub struct ExhaustiveConfig {
    pub seed: u64,
    /// Workload operations per window.
    pub ops: u64,
    pub workload: Workload,
    /// Crash points with at most this many class combinations get all.
    pub full_product_max: u64,
    /// Otherwise: outcomes within this many pages of an in-order cut.
    pub deviations: u32,
    /// A cap the user asked for: crash points with more outcomes than this
    /// are sampled (seeded) and the summary says so. `None`: never.
    pub max_outcomes: Option<u64>,
    /// Crash nesting: 1 = crashes in the workload only; 2 = also at every
    /// command of each recovery and the continuation after it; ...
    pub depth: u32,
    /// Operations searched for the events that place windows.
    pub horizon: u64,
    /// GC windows of the long-epoch run: its first this many GCs.
    pub long_epoch_gcs: usize,
    /// Windows of the failure run: its first this many media failures,
    /// each with the operations after it (what a failure mishandled
    /// shows, it shows later).
    pub failure_windows: usize,
    /// Windows of the barrier run (epochs ended by barriers, durable
    /// flushes rare) and of the failure run (the main mix with media
    /// failures aimed at the programs of flushes and writes): off with
    /// `false`, for a run that should match an older one.
    pub barrier_and_failure_runs: bool,
    /// Flush weight of the long-epoch run's mix (the main run's is
    /// `workload.flush`).
    pub long_epoch_flush: u32,
    pub shrink_time: Duration,
}

impl ExhaustiveConfig {
    pub fn new(seed: u64, ops: u64) -> ExhaustiveConfig {
        ExhaustiveConfig {
            seed,
            ops,
            workload: Workload {
                // No barriers yet: they move the windows, and with them
                // exhaustive mode missed optr-gc-erases-after-checkpoint.
                flush: 20,
                barrier: 0,
                ..Workload::default()
            },
            full_product_max: 256,
            deviations: 1,
            max_outcomes: None,
            depth: 2,
            horizon: 1500,
            long_epoch_gcs: 4,
            failure_windows: 4,
            long_epoch_flush: 1,
            barrier_and_failure_runs: true,
            shrink_time: Duration::from_secs(20),
        }
    }

    /// The bounds, in words, for the summary.
    pub fn describe(&self) -> String {
        self.describe_runs(true)
    }

    /// [`Self::describe`], saying whether the failure run is generated
    /// (not under the model oracle, whose P models no media failures).
    fn describe_runs(&self, failure_run: bool) -> String {
        let failures = if failure_run {
            format!(", and at the first {} media failures of a failure run, each with the operations after it (treated as the long-epoch run's)", self.failure_windows)
        } else {
            " (no failure run: the model oracle's P models no media failures)".into()
        };
        format!(
            "windows of {} ops at the events of a {}-op run; every crash point; every class combination up to {} per point, else in-order cuts with the next command torn and every outcome within {} page(s) of one; nesting depth {}; plus the first {} GCs of a long-epoch run (every crash point, in-order cuts with the next command torn, depth 1){}; {}",
            self.ops,
            self.horizon,
            self.full_product_max,
            self.deviations,
            self.depth,
            self.long_epoch_gcs,
            if self.barrier_and_failure_runs {
                format!("; plus windows at the first barrier and the first flush after one of a barrier run (treated as the long-epoch run's) and at its first commit in a data page after exactly one barrier (treated as the main run's){failures}")
            } else {
                String::new()
            },
            match self.max_outcomes {
                Some(m) => format!("capped at {m} outcomes per point (sampled beyond)"),
                None => "no sampling".into(),
            }
        )
    }
}

/// What a window is placed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Event {
    Format,
    Commit,
    /// SCFTL only: a flush that committed in an in-page record
    /// (docs/FORMAT.md §4.8) rather than a delta page (OOB commits, §4.9,
    /// come in the first windows anyway).
    InpageCommit,
    TentativeDelta,
    Gc,
    FullCheckpoint,
    /// OPTR only (the other FTLs take none).
    IncrementalCheckpoint,
    Refused,
    TrimOfData,
    CommitAfterTrim,
    /// Barrier run only: an epoch barrier that wrote to flash.
    Barrier,
    /// Barrier run only: a flush while barrier epochs were unsynced.
    FlushAfterBarrier,
    /// Barrier run only: a flush after exactly one barrier (one unsynced
    /// epoch) that committed in a data page, whose record proves the
    /// barrier's epoch durable, so the page must follow a sync.
    DataPageCommitAfterBarrier,
    /// Failure run only: a program or erase failed on purpose.
    MediaFailure,
    /// Failure-pair run only: a flush or barrier whose first program
    /// failed in an epoch where a write's program failed already.
    PairedFailure,
}

impl Event {
    const ALL: [Event; 10] = [
        Event::Format,
        Event::Commit,
        Event::InpageCommit,
        Event::TentativeDelta,
        Event::Gc,
        Event::FullCheckpoint,
        Event::IncrementalCheckpoint,
        Event::Refused,
        Event::TrimOfData,
        Event::CommitAfterTrim,
    ];

    /// The events the main run looks for on `target`.
    fn wanted(target: &str) -> Vec<Event> {
        Event::ALL
            .into_iter()
            .filter(|&e| e != Event::IncrementalCheckpoint || target == "optr")
            .filter(|&e| e != Event::InpageCommit || target == "scftl")
            .collect()
    }

    fn name(self) -> &'static str {
        match self {
            Event::Format => "format",
            Event::Commit => "commit",
            Event::InpageCommit => "in-page commit",
            Event::TentativeDelta => "tentative delta page",
            Event::Gc => "gc",
            Event::FullCheckpoint => "full checkpoint",
            Event::IncrementalCheckpoint => "incremental checkpoint",
            Event::Refused => "refused request",
            Event::TrimOfData => "trim of written sectors",
            Event::CommitAfterTrim => "commit after trim",
            Event::Barrier => "epoch barrier",
            Event::FlushAfterBarrier => "flush after barriers",
            Event::DataPageCommitAfterBarrier => "commit in a data page after one barrier",
            Event::MediaFailure => "media failure",
            Event::PairedFailure => "flush failure after a write failure",
        }
    }
}

/// One crash-free seeded run and where its events fell.
struct Generated {
    script: Vec<Step>,
    /// `ends[i]`: script length after operation `i` (its check included).
    ends: Vec<usize>,
    /// The first operation of each event reached.
    found: Vec<(Event, usize)>,
    /// Its workload counters.
    stats: Stats,
}

/// Events reached, each with the operation that first reached it.
type Found = Vec<(Event, usize)>;

/// Runs the generator crash-free from a fresh device (format first, every
/// operation followed by `check_invariants`) until every event in `wanted`
/// was reached and at least `min_ops` operations ran, or `horizon`
/// operations ran; also until `repeat`'s event (a GC with relocations or
/// a media failure) happened its number of times and its number of
/// operations ran after the last of them; returns the operations of the
/// first that many. The format is always the event of operation 0.
fn generate(
    g: &mut Gen<'_>,
    wanted: &[Event],
    min_ops: u64,
    horizon: u64,
    repeat: Option<(Event, usize, usize)>,
) -> Result<(Vec<usize>, Found, Vec<usize>), Violation> {
    let (repeated, reps_wanted, tail) = repeat.unwrap_or((Event::Format, 0, 0));
    let mut reps: Vec<usize> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    let mut found: Vec<(Event, usize)> = vec![(Event::Format, 0)];
    g.emit(Step::Format)?;
    // Sectors whose data a trim removed and no write has replaced since (a
    // commit then has a trim to make durable).
    let mut trimmed: HashSet<u64> = HashSet::new();
    // Sectors holding written data, by the workload alone (so a window
    // placed on a trim does not depend on the FTL under test).
    let mut live: HashSet<u64> = HashSet::new();
    // Barriers that wrote, completed since the last completed flush.
    let mut unsynced_barriers = 0u32;
    // The failure-pair run replaces the device after each pair's tail:
    // a pair takes two spare superblocks, and the next needs them again.
    let mut replace = false;
    while g.ops < horizon.max(min_ops) && g.exec.phase() == Phase::Up {
        if replace {
            g.emit(Step::NewDevice)?;
            g.emit(Step::Format)?;
            replace = false;
            unsynced_barriers = 0;
            trimmed.clear();
            live.clear();
            continue;
        }
        let before = g.exec.device_stats().unwrap_or_default();
        let refused = g.exec.stats().epoch_full;
        let (barriers, flushes) = (g.exec.stats().barriers, g.exec.stats().flushes);
        let (failures, failures_programs) = {
            let s = g.exec.stats();
            (
                s.program_failures_injected + s.erase_failures_injected,
                s.program_failures_injected,
            )
        };
        // The failure-pair run's generator knows whether this epoch's
        // write already failed (`Gen::pair_failures`).
        let write_failed_in_epoch = g.failed_write_in_epoch;
        let len = g.script.len();
        g.op()?;
        let after = g.exec.device_stats().unwrap_or_default();
        let i = ends.len();
        ends.push(g.script.len());
        let ran: Vec<&Step> = g.script[len..].iter().filter(|s| s.is_op()).collect();
        let flushed =
            ran.iter().any(|s| matches!(s, Step::Flush)) && after.flushes > before.flushes;
        let mut note = |e: Event| {
            if !found.iter().any(|&(f, _)| f == e) {
                found.push((e, i));
            }
        };
        if flushed && after.meta_pages_written > before.meta_pages_written {
            note(Event::Commit);
            if !trimmed.is_empty() {
                note(Event::CommitAfterTrim);
            }
            trimmed.clear();
        }
        let inpage = |s: &ftl::DeviceStats| s.data_page_commits - s.oob_page_commits;
        if flushed && inpage(&after) > inpage(&before) {
            note(Event::InpageCommit);
        }
        if !flushed && after.meta_pages_written > before.meta_pages_written {
            note(Event::TentativeDelta);
        }
        // A victim with live sectors: reclaiming an empty one moves nothing
        // a crash could lose.
        if after.gc_sectors_relocated > before.gc_sectors_relocated {
            note(Event::Gc);
            if repeated == Event::Gc {
                reps.push(i);
            }
        }
        if after.full_checkpoints > before.full_checkpoints {
            note(Event::FullCheckpoint);
        }
        let incremental = |s: &ftl::DeviceStats| {
            ftl::optr::OptrStats::from_counters(&s.ftl_counters)
                .map_or(0, |o| o.incremental_checkpoints)
        };
        if incremental(&after) > incremental(&before) {
            note(Event::IncrementalCheckpoint);
        }
        let was_refused = g.exec.stats().epoch_full > refused;
        if was_refused {
            note(Event::Refused);
        }
        let now = g.exec.stats();
        if now.flushes > flushes {
            if unsynced_barriers > 0 {
                note(Event::FlushAfterBarrier);
            }
            if unsynced_barriers == 1 && after.data_page_commits > before.data_page_commits {
                note(Event::DataPageCommitAfterBarrier);
            }
            unsynced_barriers = 0;
        }
        if now.barriers > barriers
            && after.meta_pages_written + after.data_page_commits
                > before.meta_pages_written + before.data_page_commits
        {
            note(Event::Barrier);
            unsynced_barriers += 1;
        }
        if now.program_failures_injected + now.erase_failures_injected > failures {
            note(Event::MediaFailure);
            if repeated == Event::MediaFailure {
                reps.push(i);
            }
        }
        let ended_epoch = ran.iter().any(|s| matches!(s, Step::Flush | Step::Barrier));
        if ended_epoch && write_failed_in_epoch && now.program_failures_injected > failures_programs
        {
            note(Event::PairedFailure);
            if repeated == Event::PairedFailure {
                reps.push(i);
            }
        }
        // (Also when a failure left the device read-only: SCFTL retires
        // a superblock only while the free pool can spare one.)
        if repeated == Event::PairedFailure
            && (reps.last().is_some_and(|&r| i == r + tail) || g.exec.read_only())
        {
            replace = true;
        }
        for st in &ran {
            match **st {
                Step::Write { lba, count } if !was_refused => {
                    for l in lba..lba + u64::from(count) {
                        live.insert(l);
                        trimmed.remove(&l);
                    }
                }
                Step::Trim { lba, count } if !was_refused => {
                    let mut hit = false;
                    for l in lba..lba + u64::from(count) {
                        if live.remove(&l) {
                            hit = true;
                            trimmed.insert(l);
                        }
                    }
                    if hit {
                        note(Event::TrimOfData);
                    }
                }
                _ => {}
            }
        }
        if wanted.iter().all(|w| found.iter().any(|&(f, _)| f == *w))
            && g.ops >= min_ops
            && reps.len() >= reps_wanted
            && (reps_wanted == 0 || i >= reps[reps_wanted - 1] + tail)
        {
            break;
        }
    }
    reps.truncate(reps_wanted);
    Ok((ends, found, reps))
}

/// Index of the long-epoch run in the runs generated.
const LONG_EPOCH_RUN: usize = 2;
/// Index of the barrier run.
const BARRIER_RUN: usize = 3;
/// Index of the failure run (generated for the real FTLs only).
const FAILURE_RUN: usize = 4;
/// Index of the failure-pair run (generated with spare superblocks only).
const PAIR_RUN: usize = 5;

/// Names of the runs, by index, for the summary.
const RUN_NAMES: [&str; 6] = [
    "main",
    "fresh-region",
    "long-epoch",
    "barrier",
    "failure",
    "failure-pair",
];

/// A window: operations `a..b` of run `run` (0: the main workload, 1: the
/// fresh-region run, 2: the long-epoch run), and the events it holds.
struct Window {
    run: usize,
    a: usize,
    b: usize,
    events: Vec<Event>,
    /// Enumerated lightly: in-order cuts with the next command torn, no
    /// nested crashes (the long-epoch run's GC windows).
    light: bool,
}

/// Enumerates the crash states of a short seeded workload's windows, with
/// nested crashes, recovering and verifying every distinct one (all
/// sectors, plus `check_invariants`).
pub fn exhaustive(
    run: &RunConfig,
    cfg: &ExhaustiveConfig,
    progress: &mut dyn FnMut(&Stats, Duration),
) -> Report {
    let (reporter, rng) = Reporter::begin(run, cfg.seed, cfg.shrink_time);
    let data_seed = reporter.data_seed();
    let mut ex = ExhaustiveStats {
        workload_ops: cfg.ops,
        depth: cfg.depth,
        bounds: cfg.describe_runs(run.oracle.is_none()),
        ..ExhaustiveStats::default()
    };
    // The main workload, generated against a crash-free run; every
    // operation is followed by check_invariants.
    let ecfg = ExploreConfig {
        workload: cfg.workload.clone(),
        crash_prob: 0.0,
        recovery_crash_prob: 0.0,
        format_crash_prob: 0.0,
        check_rate: 1.0,
        forced_barrier_prob: 0.0,
        ..ExploreConfig::new(cfg.seed)
    };
    // The fresh-region run: the same mix without voluntary flushes, so the
    // first epoch after the format outgrows a delta page while the region
    // is nearly empty. In the main workload the first tentative page may
    // come when the region is nearly full, and then the full checkpoint
    // the recovery writes (it compacts a region without room for an epoch)
    // starts a new generation that hides what the crashed epoch left
    // behind: a recovery that mishandles a crashed epoch's tentative pages
    // shows only when the region has room.
    let fresh_cfg = ExploreConfig {
        workload: Workload {
            // Writes only (a trim of an unmapped sector uses up the budget
            // without a pair), spread out so the pairs are distinct sectors.
            flush: 0,
            trim: 0,
            read: 0,
            hot_prob: 0.0,
            ..cfg.workload.clone()
        },
        ..ecfg.clone()
    };
    // The long-epoch run: the main mix with voluntary flushes rare, so
    // that GC runs while much acknowledged data is not durable yet (a
    // write-back cache full of dirty sectors, requests partly written
    // back) and while the log holds many pages written since the last
    // checkpoint or flush. The main run flushes every few operations, and
    // its first GC finds little of either.
    let long_cfg = ExploreConfig {
        workload: Workload {
            flush: cfg.long_epoch_flush,
            ..cfg.workload.clone()
        },
        ..ecfg.clone()
    };
    // The barrier run: epochs end by barriers (durable flushes rare), as
    // the NBD server ends the epochs a client did not flush. Windows at
    // its first barrier that wrote and at its first flush after barriers:
    // the commits that order without syncing, and the sync that must make
    // every barrier epoch before it durable.
    let barrier_cfg = ExploreConfig {
        workload: Workload {
            flush: 2,
            barrier: 18,
            ..cfg.workload.clone()
        },
        forced_barrier_prob: 1.0,
        ..ecfg.clone()
    };
    // The failure run: the main mix with media failures aimed at the
    // programs of flushes (pad, commit, checkpoint pages) and of writes
    // (`Gen::aim_failure`); a window at its first failure.
    let failure_cfg = ExploreConfig {
        failure_rate: 1.0,
        aimed_rate: 1.0,
        ..ecfg.clone()
    };
    // Each run with the events it places windows on (the long-epoch run
    // places its own, at GCs; see LONG_EPOCH_RUN).
    let main_events = Event::wanted(run.target.name);
    let mut specs: Vec<(&ExploreConfig, &[Event])> = vec![
        (&ecfg, &main_events[..]),
        (&fresh_cfg, &[Event::TentativeDelta][..]),
        (&long_cfg, &[Event::Gc][..]),
    ];
    // Only SCFTL commits in data pages.
    let barrier_events: Vec<Event> = [
        Event::Barrier,
        Event::FlushAfterBarrier,
        Event::DataPageCommitAfterBarrier,
    ]
    .into_iter()
    .filter(|&e| e != Event::DataPageCommitAfterBarrier || run.target.name == "scftl")
    .collect();
    if cfg.barrier_and_failure_runs {
        specs.push((&barrier_cfg, &barrier_events[..]));
        // The toy FTL takes no media failures, and the model oracle's P
        // models none.
        if run.oracle.is_none() && run.target.handles_media_failures() {
            specs.push((&failure_cfg, &[Event::MediaFailure][..]));
            // The failure-pair run (with spare superblocks, which let a
            // device live through failures): the failure run's mix, its
            // failures in pairs (`Gen::pair_failures`: a write's program,
            // then the first program of the flush or barrier ending its
            // epoch). Windows at each of its first `failure_windows` pairs,
            // with the operations after.
            if run.target.spare > 0 {
                specs.push((&failure_cfg, &[Event::PairedFailure][..]));
                ex.bounds += &format!(
                    "; plus windows at the first {} failure pairs (a write's program, then the first of the flush ending its epoch) of a failure-pair run on a device with spare superblocks (treated as the failure run's)",
                    cfg.failure_windows
                );
            }
        }
    }
    let mut runs: Vec<Generated> = Vec::new();
    let mut rng = rng;
    for (k, &(gcfg, wanted)) in specs.iter().enumerate() {
        let exec = match Executor::replay(run, data_seed, &[]) {
            Ok(e) => e,
            Err(v) => return reporter.failed(Stats::default(), Some(ex), v, vec![], 0),
        };
        // The main run draws from the campaign's generator, the others
        // from generators seeded by it.
        let r = if k == 0 {
            rng.clone()
        } else {
            Pcg64::seed_from_u64(rng.gen())
        };
        let mut g = Gen::new(gcfg, r, exec);
        g.fill_epochs = k == 1;
        g.pair_failures = k == PAIR_RUN;
        let min_ops = if k == 0 { cfg.ops } else { 0 };
        let repeat = if k == LONG_EPOCH_RUN {
            Some((Event::Gc, cfg.long_epoch_gcs, 0))
        } else if k == FAILURE_RUN || k == PAIR_RUN {
            let e = if k == FAILURE_RUN {
                Event::MediaFailure
            } else {
                Event::PairedFailure
            };
            Some((e, cfg.failure_windows, (cfg.ops as usize).saturating_sub(1)))
        } else {
            None
        };
        match generate(&mut g, wanted, min_ops, cfg.horizon, repeat) {
            Ok((ends, mut found, reps)) => {
                if k == 0 {
                    rng = g.rng.clone();
                } else if let Some((e, _, _)) = repeat {
                    // A window at each of its first GCs or failures.
                    found = reps.iter().map(|&i| (e, i)).collect();
                } else {
                    // Only its own events place windows; the format has
                    // the main run's.
                    found.retain(|&(e, _)| wanted.contains(&e));
                }
                runs.push(Generated {
                    script: std::mem::take(&mut g.script),
                    ends,
                    found,
                    stats: g.exec.stats().workload(),
                });
            }
            Err(v) => {
                let script = std::mem::take(&mut g.script);
                return reporter.failed(g.exec.stats(), Some(ex), v, script, g.ops);
            }
        }
    }
    // Windows: (first op, one past the last op), merged when they overlap.
    let mut windows: Vec<Window> = Vec::new();
    for (k, r) in runs.iter_mut().enumerate() {
        r.found.sort_by_key(|&(_, i)| i);
        for &(e, i) in &r.found {
            let (a, b) = if e == Event::Format {
                (0, (cfg.ops as usize).min(r.ends.len()))
            } else if k == LONG_EPOCH_RUN {
                // The GC's operation alone: the workload before it is
                // what makes the state, not a crash inside it.
                (i, i + 1)
            } else if k == FAILURE_RUN || k == PAIR_RUN {
                // The failure's operation and those after it.
                (i, (i + cfg.ops as usize).min(r.ends.len()))
            } else {
                ((i + 1).saturating_sub(cfg.ops as usize), i + 1)
            };
            match windows.last_mut() {
                Some(w) if w.run == k && a < w.b => {
                    w.b = w.b.max(b);
                    w.events.push(e);
                }
                _ => windows.push(Window {
                    run: k,
                    a,
                    b,
                    events: vec![e],
                    light: k >= LONG_EPOCH_RUN,
                }),
            }
        }
    }
    // The barrier run's window at a data-page commit after one barrier
    // gets the full treatment: what it is there for shows only off the
    // in-order cuts (its other windows stay light: full, they cost 10 s
    // (SCFTL) to 50 s (async) more per run on tiny, and caught nothing
    // more).
    for w in &mut windows {
        if w.run == BARRIER_RUN && w.events.contains(&Event::DataPageCommitAfterBarrier) {
            w.light = false;
        }
    }
    ex.windows = windows
        .iter()
        .map(|w| {
            let names: Vec<&str> = w.events.iter().map(|e| e.name()).collect();
            let of = match w.run {
                0 => String::new(),
                k => format!("{} run: ", RUN_NAMES[k]),
            };
            format!("{of}ops {}..{} ({})", w.a, w.b, names.join(", "))
        })
        .collect();
    ex.events_missing = main_events
        .iter()
        .filter(|e| !runs[0].found.iter().any(|(f, _)| f == *e))
        .map(|e| e.name().to_string())
        .collect();
    if runs[1].found.is_empty() {
        ex.events_missing.push(format!(
            "{} (fresh-region run)",
            Event::TentativeDelta.name()
        ));
    }
    for (k, wanted) in specs.iter().map(|s| s.1).enumerate().skip(3) {
        for e in wanted {
            if !runs[k].found.iter().any(|(f, _)| f == e) {
                ex.events_missing
                    .push(format!("{} ({} run)", e.name(), RUN_NAMES[k]));
            }
        }
    }
    // What the windows cover, run by run: operations generated and in
    // windows, and the operation kinds the windows hold.
    ex.coverage = runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let mut in_windows = 0;
            let mut kinds: Vec<&str> = Vec::new();
            for w in windows.iter().filter(|w| w.run == k) {
                in_windows += w.b - w.a;
                let start = if w.a == 0 { 0 } else { r.ends[w.a - 1] };
                for st in &r.script[start..r.ends[w.b - 1]] {
                    let kind = match st {
                        Step::Format => "format",
                        Step::Write { .. } => "write",
                        Step::Trim { .. } => "trim",
                        Step::Flush => "flush",
                        Step::Barrier => "barrier",
                        Step::Read { .. } => "read",
                        Step::FailProgram { .. } => "failed program",
                        Step::FailErase { .. } => "failed erase",
                        _ => continue,
                    };
                    if !kinds.contains(&kind) {
                        kinds.push(kind);
                    }
                }
            }
            format!(
                "{} run: {} ops generated, {} in windows ({})",
                RUN_NAMES[k],
                r.ends.len(),
                in_windows,
                if kinds.is_empty() {
                    "none".to_string()
                } else {
                    kinds.join(", ")
                }
            )
        })
        .collect();
    let long_gcs = runs[LONG_EPOCH_RUN].found.len();
    if long_gcs < cfg.long_epoch_gcs {
        ex.events_missing.push(format!(
            "{} of {} GCs (long-epoch run)",
            cfg.long_epoch_gcs - long_gcs,
            cfg.long_epoch_gcs
        ));
    }
    let mut total = Stats::default();
    for r in &runs {
        total += r.stats.clone();
    }
    let mut en = Enumeration {
        run,
        cfg,
        data_seed,
        rng,
        seen: HashSet::new(),
        total,
        ex,
        light: false,
    };
    let mut result = Ok(());
    // The light windows first: they are cheap, and a bug they catch is
    // reported without enumerating the full windows before. A state seen
    // there was not nested, so the full windows start with an empty set.
    let light = windows.iter().filter(|w| w.light);
    let order = light.chain(windows.iter().filter(|w| !w.light));
    'windows: for w in order {
        let Generated { script, ends, .. } = &runs[w.run];
        let (a, b) = (w.a, w.b);
        if en.light && !w.light {
            en.seen.clear();
        }
        en.light = w.light;
        // Crash-free prefix (format, earlier operations without their
        // checks), then the window with its checks.
        let start = if a == 0 { 0 } else { ends[a - 1] };
        let mut base: Vec<Step> = script[..start]
            .iter()
            .filter(|s| !matches!(s, Step::Check))
            .cloned()
            .collect();
        let first_cmd = if a == 0 {
            0
        } else {
            match Executor::replay(run, data_seed, &base) {
                Ok(e) => e.flash_commands(),
                Err(v) => {
                    result = Err((v, base));
                    break;
                }
            }
        };
        base.extend(script[start..ends[b - 1]].iter().cloned());
        let last_cmd = match Executor::replay(run, data_seed, &base) {
            Ok(e) => e.flash_commands(),
            Err(v) => {
                result = Err((v, base));
                break;
            }
        };
        for k in first_cmd..=last_cmd {
            let mut prefix = vec![Step::Arm { commands: k }];
            prefix.extend(base.iter().cloned());
            result = en.crash_point(&prefix, 1, None);
            if result.is_err() {
                break 'windows;
            }
            progress(&en.total, reporter.elapsed());
        }
    }
    match result {
        Ok(()) => reporter.passed(en.total, Some(en.ex)),
        Err((v, script)) => reporter.failed(en.total, Some(en.ex), v, script, cfg.ops),
    }
}

/// A violation and the script that shows it.
type Caught = (Violation, Vec<Step>);

/// The state of an enumeration.
struct Enumeration<'a> {
    run: &'a RunConfig,
    cfg: &'a ExhaustiveConfig,
    data_seed: u64,
    /// Draws the sampled outcomes when the user capped them.
    rng: Pcg64,
    /// Fingerprints of the crash states already verified.
    seen: HashSet<u64>,
    total: Stats,
    ex: ExhaustiveStats,
    /// The window being enumerated is light (see [`Window::light`]).
    light: bool,
}

impl Enumeration<'_> {
    /// The recovery after each enumerated crash: verifies every sector and
    /// checks the FTL's invariants.
    const RECOVER: Step = Step::Recover {
        sample_seed: 0,
        invariants: true,
        full: true,
    };

    /// The outcomes to check at a crash point, as class vectors.
    fn outcomes(&mut self, e: &Executor, level: u32) -> Vec<Vec<PageClass>> {
        let classes = e.page_classes();
        let n = e.in_flight_commands();
        let product = classes
            .iter()
            .fold(1u64, |acc, c| acc.saturating_mul(c.len() as u64));
        let mut out: Vec<Vec<PageClass>> = Vec::new();
        let mut set: HashSet<Vec<PageClass>> = HashSet::new();
        let mut add = |v: Vec<PageClass>, out: &mut Vec<Vec<PageClass>>| {
            if set.insert(v.clone()) {
                out.push(v);
            }
        };
        let inorder = self.light;
        if level == 1 && !inorder && product <= self.cfg.full_product_max {
            self.ex.points_every_combination += 1;
            for mut i in 0..product {
                let v = classes
                    .iter()
                    .map(|c| {
                        let d = (i % c.len() as u64) as usize;
                        i /= c.len() as u64;
                        c[d]
                    })
                    .collect();
                add(v, &mut out);
            }
        } else {
            if level == 1 {
                self.ex.points_bounded += 1;
            }
            for j in 0..=n {
                let (cut, next) = e.in_order_cut(j);
                add(cut.clone(), &mut out);
                // The next command torn (every page it touched): all
                // garbage, or its result's prefix (a program's).
                for prefix in [false, true] {
                    let mut v = cut.clone();
                    let mut any = false;
                    for &p in &next {
                        let tc = classes[p].iter().copied().rfind(|c| match c {
                            PageClass::Prefix(_) => prefix,
                            PageClass::Garbage => !prefix,
                            PageClass::Image(_) | PageClass::Damaged { .. } => false,
                        });
                        if let Some(tc) = tc {
                            v[p] = tc;
                            any = true;
                        }
                    }
                    if any {
                        add(v, &mut out);
                    }
                }
                if level > 1 || inorder || self.cfg.deviations == 0 {
                    continue;
                }
                for p in 0..cut.len() {
                    for &c in &classes[p] {
                        if c == cut[p] {
                            continue;
                        }
                        let mut v = cut.clone();
                        v[p] = c;
                        if self.cfg.deviations >= 2 {
                            for q in p + 1..cut.len() {
                                for &d in &classes[q] {
                                    if d != cut[q] {
                                        let mut w = v.clone();
                                        w[q] = d;
                                        add(w, &mut out);
                                    }
                                }
                            }
                        }
                        add(v, &mut out);
                    }
                }
            }
        }
        if let Some(cap) = self.cfg.max_outcomes {
            if out.len() as u64 > cap {
                self.ex.points_sampled += 1;
                let keep = cap.max(1) as usize;
                let mut picked: Vec<Vec<PageClass>> = Vec::with_capacity(keep);
                // Always the first (an in-order cut) and the last.
                let last = out.len() - 1;
                picked.push(out[0].clone());
                if keep > 1 {
                    picked.push(out[last].clone());
                }
                while picked.len() < keep {
                    let i = self.rng.gen_range(0..out.len());
                    picked.push(out[i].clone());
                }
                return picked;
            }
        }
        out
    }

    /// The crash point that `prefix` (which arms a power cut, then runs
    /// steps) reaches: every outcome of the pages in flight there. `probe`
    /// is an executor that already ran `prefix`, if the caller has one.
    fn crash_point(
        &mut self,
        prefix: &[Step],
        level: u32,
        probe: Option<Executor>,
    ) -> Result<(), Caught> {
        if level == 1 {
            self.ex.crash_points += 1;
        } else {
            self.ex.nested_crash_points += 1;
        }
        let probe = match probe {
            Some(e) => e,
            None => match Executor::replay(self.run, self.data_seed, prefix) {
                Ok(e) => e,
                Err(v) => return Err((v, prefix.to_vec())),
            },
        };
        let outcomes = self.outcomes(&probe, level);
        let count = outcomes.len();
        let mut last = Some(probe);
        for (i, v) in outcomes.into_iter().enumerate() {
            self.ex.outcomes_enumerated += 1;
            // A down device is forked (cheap); an up one (a cut that did
            // not fire) is replayed.
            let e = if i + 1 == count {
                last.take().expect("probe kept for the last outcome")
            } else {
                let probe = last.as_ref().expect("probe kept");
                match probe.fork() {
                    Some(e) => e,
                    None => Executor::replay(self.run, self.data_seed, prefix)
                        .expect("replays like the probe"),
                }
            };
            let crash = Step::Crash {
                how: CrashHow::Pages(v),
                seed: mix64(prefix.len() as u64 ^ mix64(i as u64 ^ self.data_seed)),
            };
            self.outcome(prefix, crash, e, level)?;
        }
        Ok(())
    }

    /// One outcome: skipped if its crash state was seen, else recovered and
    /// verified; then, below the depth bound, power is cut at every command
    /// of that recovery and of a continuation after it.
    fn outcome(
        &mut self,
        prefix: &[Step],
        crash: Step,
        mut e: Executor,
        level: u32,
    ) -> Result<(), Caught> {
        let mut script = prefix.to_vec();
        script.push(crash.clone());
        if let Err(v) = e.step(&crash) {
            return Err((v, script));
        }
        if !self.seen.insert(e.fingerprint()) {
            self.ex.duplicate_states_skipped += 1;
            return Ok(());
        }
        if level == 1 {
            self.ex.distinct_crash_states += 1;
        } else {
            self.ex.nested_crash_states += 1;
        }
        let nested = level < self.cfg.depth && !self.light;
        // The crash state before its recovery, to fork the nested runs
        // from (a recovered device is up and cannot be forked: taking the
        // fork after the recovery made every nested crash point replay
        // its whole script from format).
        let down = if nested { e.fork() } else { None };
        let before = e.flash_commands();
        script.push(Self::RECOVER);
        if let Err(v) = e.step(&Self::RECOVER) {
            return Err((v, script));
        }
        let recovery_cmds = e.flash_commands() - before;
        if !nested {
            // Run the continuation anyway: what recovery left must take a
            // commit (this is where a bad recovery shows).
            let cont = Self::continuation(&e);
            for s in &cont {
                script.push(s.clone());
                if let Err(v) = e.step(s) {
                    return Err((v, script));
                }
            }
            self.total += e.stats().checking();
            return Ok(());
        }
        let cont = Self::continuation(&e);
        let mut probe_script = script.clone();
        script.truncate(script.len() - 1);
        for s in &cont {
            probe_script.push(s.clone());
            if let Err(v) = e.step(s) {
                return Err((v, probe_script));
            }
        }
        self.total += e.stats().checking();
        let cont_cmds = e.flash_commands() - before - recovery_cmds;
        // Level + 1: a cut at every command of the recovery (its end
        // included: an armed cut not fired by then is disarmed, unless it
        // is due at the very next command)...
        let mut suffixes: Vec<Vec<Step>> = Vec::new();
        for r in 0..=recovery_cmds {
            let mut s2 = vec![Step::Arm { commands: r }, Self::RECOVER];
            s2.extend(cont.iter().cloned());
            suffixes.push(s2);
        }
        // ...and at every command of the continuation (the last value cuts
        // power after it, between operations).
        for c in 0..=cont_cmds {
            let mut s2 = vec![Self::RECOVER, Step::Arm { commands: c }];
            s2.extend(cont.iter().cloned());
            suffixes.push(s2);
        }
        for suffix in suffixes {
            let mut s2 = script.clone();
            s2.extend(suffix.iter().cloned());
            let mut probe = down.as_ref().and_then(|d| d.fork());
            if let Some(p) = probe.as_mut() {
                for st in &suffix {
                    if let Err(v) = p.step(st) {
                        return Err((v, s2));
                    }
                }
            }
            self.crash_point(&s2, level + 1, probe)?;
        }
        Ok(())
    }

    /// After a recovery: a request one sector past the epoch bound (if the
    /// device has one), a write, a flush, each checked.
    fn continuation(e: &Executor) -> Vec<Step> {
        let mut v = Vec::new();
        let n = e.num_sectors();
        if n == 0 {
            return v;
        }
        if let Some(rem) = e.epoch_remaining() {
            if rem < n && rem < u64::from(u32::MAX) {
                v.push(Step::Write {
                    lba: 0,
                    count: rem as u32 + 1,
                });
                v.push(Step::Check);
            }
        }
        v.push(Step::Write {
            lba: n / 2,
            count: 2.min(n as u32),
        });
        v.push(Step::Check);
        v.push(Step::Flush);
        v.push(Step::Check);
        v
    }
}
