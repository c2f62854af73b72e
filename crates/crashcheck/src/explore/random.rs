//! Random mode: the script generator (workload operations, power cuts
//! armed at a random flash command of the cycle, crash policies, recoveries
//! and formats that may themselves be cut) and the seeded campaign that
//! runs it until an operation or time budget is spent. Exhaustive mode
//! reuses the generator for its crash-free workload.

use std::time::Duration;

use flash::CrashPolicy;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::report::{Report, Reporter};
use crate::exec::{CrashHow, Executor, Phase, RunConfig, Stats, Step, Violation};
use crate::spec::ContractKind;

/// Under the prefix contract, the probability that a write or trim
/// overlaps one of the last few writes (a cache that coalesces overwrites
/// of dirty sectors must still keep each request whole and in order).
/// Other contracts keep the plain mix, so their seeds replay as before.
const PREFIX_RECENT_OVERWRITE: f64 = 0.3;

/// Writes remembered for those overwrites.
const RECENT_WRITES: usize = 8;

/// Mixed into the seed of the generator's side stream.
const SIDE_STREAM: u64 = 0xBA77_1E55_0000_0001;

/// Mixed into the seed of the media-failure stream (`--inject-failures`).
const FAILURE_STREAM: u64 = 0xFA11_ED00_0000_0002;

/// Mixed into the seed of the aimed-cycle stream (`--aimed`).
const AIM_STREAM: u64 = 0xA1ED_0000_0000_0003;

/// An aimed cycle on a device with fewer mapped sectors than this share of
/// its logical size first fills it (writes every sector).
const AIM_FULL_SHARE: f64 = 0.9;

/// The cut of an aimed cycle on a full device falls right after one of
/// its first this many erases.
const AIM_ERASES_MAX: u64 = 4;

/// With aimed cycles and injected failures on, the probability (times
/// the failure rate) that a flush or barrier gets a failure aimed at its
/// own programs, and that a write does (`Gen::aim_failure`).
const AIMED_FLUSH_FAILURES: f64 = 0.05;
const AIMED_WRITE_FAILURES: f64 = 0.005;

/// In an aimed cycle on a full device with failures injected, the
/// probability that a barrier's first program (its pad page) fails.
const AIMED_PAD_FAILURES: f64 = 0.1;

/// Exhaustive mode's failure-pair run (`Gen::pair_failures`): the
/// probability that a write gets a failure aimed at its first program
/// while GC victims wait for the epoch's end and at most one superblock
/// is free or erasable.
const PAIRED_WRITE_FAILURES: f64 = 0.25;

/// Of the cycles that inject a media failure, the share that fails an
/// erase rather than a program (erases are rarer commands).
const ERASE_FAILURE_SHARE: f64 = 0.25;

/// Cycles in a row that may end with the device read-only (`WornOut`)
/// before the generator replaces it with a new one (`Step::NewDevice`):
/// a device whose metadata wore out stays read-only across reopens, and
/// checking only its reads would waste the rest of the run.
const READ_ONLY_CYCLES_MAX: u32 = 3;

/// The workload mix.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Relative weights of the operations.
    pub write: u32,
    pub trim: u32,
    pub flush: u32,
    /// Epoch barriers (`BlockDevice::epoch_barrier`). The generator draws
    /// flushes and barriers as one kind and then splits it by weight, so
    /// a mix's random stream does not depend on the split.
    pub barrier: u32,
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
            flush: 5,
            barrier: 5,
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
    /// Probability that an operation is followed by `check_invariants`
    /// (scaled down the same way): catches in-memory bookkeeping bugs that
    /// a recovery would rebuild away, and compares the stable L2P on flash
    /// with the ghost copy the flush path keeps.
    pub check_rate: f64,
    /// Probability that a write or trim that does not fit the epoch's
    /// remaining budget is issued anyway (expecting `EpochFull` and no
    /// change) instead of being preceded by a flush; and, when the budget
    /// is nearly spent, that a request one sector too long is made on
    /// purpose.
    pub over_bound_prob: f64,
    /// Probability that an epoch end the bound forces (a write that does
    /// not fit the budget) is an epoch barrier instead of a flush, as the
    /// NBD server ends epochs the client did not ask to flush. Drawn from
    /// the generator's side stream (see `Gen::side`).
    pub forced_barrier_prob: f64,
    /// Probability that a cycle makes one program or erase fail
    /// (`Step::FailProgram` at a random program of about the cycle's
    /// commands, or `Step::FailErase` at one of the next few erases);
    /// 0 (the default) injects none. Drawn from a stream of its own, so a
    /// seed's workload is the same with injection on until the first
    /// failure fires.
    pub failure_rate: f64,
    /// Probability that a cycle is an aimed one (`Gen::aimed_cycle`)
    /// instead of a random one: a cycle built to reach the rare states
    /// where an erase destroys what a fallback state or a re-verification
    /// still needs. 0 (the default) runs none. Its choice of cycles is
    /// drawn from a stream of its own, so with 0 a seed's script is as
    /// without it.
    pub aimed_rate: f64,
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
            recovery_crash_prob: 0.4,
            format_crash_prob: 0.3,
            long_epoch_prob: 0.2,
            full_verify_sectors: 8.0,
            invariants_prob: 0.05,
            check_rate: 0.1,
            over_bound_prob: 0.1,
            forced_barrier_prob: 0.5,
            failure_rate: 0.0,
            aimed_rate: 0.0,
            shrink_time: Duration::from_secs(20),
        }
    }
}

/// The script generator: draws each step from the run's generator, records
/// it in `script` and runs it at once, so every choice sees the device's
/// current state (phase, epoch budget, commands per operation).
pub(super) struct Gen<'a> {
    cfg: &'a ExploreConfig,
    pub(super) rng: Pcg64,
    /// A second stream, seeded from the run's seed, for the choices added
    /// with epoch barriers: drawing them here leaves `rng`'s draws (so the
    /// rest of a seed's script) as they were before barriers existed.
    side: Pcg64,
    /// The media-failure stream (`ExploreConfig::failure_rate`).
    fail: Pcg64,
    /// The aimed-cycle stream (`ExploreConfig::aimed_rate`).
    aim: Pcg64,
    /// Cycles in a row that ended with the device read-only.
    read_only_cycles: u32,
    pub(super) exec: Executor,
    pub(super) script: Vec<Step>,
    /// Workload operations emitted (what `--ops` counts).
    pub(super) ops: u64,
    /// Running estimate of flash commands per operation, so a power cut
    /// lands uniformly over a cycle's commands.
    cmds_per_op: f64,
    /// Commands of the last uncut format, and the most any recovery took:
    /// the ranges power cuts inside them are drawn from.
    format_cmds: u64,
    recovery_cmds: u64,
    /// This cycle issues no voluntary flush.
    no_flush: bool,
    /// A request that does not fit the epoch's budget is cut to what is
    /// left instead of being preceded by a flush, so epochs fill to the
    /// bound exactly (exhaustive mode's fresh-region run: an epoch of W
    /// sector updates fills a delta page of SCFTL's presets).
    pub(super) fill_epochs: bool,
    /// Failures come in pairs (exhaustive mode's failure-pair run, with
    /// spare superblocks): while GC victims wait for the epoch's end and
    /// at most one superblock is free or erasable (`DeviceStats`), now and
    /// then (`PAIRED_WRITE_FAILURES`) a write's first program fails (armed
    /// before it, disarmed after it if the write programmed nothing), and
    /// then the first program of the flush or barrier that ends its epoch
    /// fails too (its pad page, or with the merge buffer empty its commit
    /// page, which makes a full checkpoint take superblocks). The first
    /// failure takes the last superblock out of the pool; the second makes
    /// the flush find one while the pool holds nothing but what this very
    /// epoch's GC freed, which must not be erased before the commit.
    /// Aimed cycles' other failures are off.
    pub(super) pair_failures: bool,
    /// A write failed since the last flush or barrier (`pair_failures`).
    pub(super) failed_write_in_epoch: bool,
    /// A failure is armed for the operation being run (`pair_failures`).
    failure_armed: bool,
    /// Probability of a request over a recent write, and the last writes
    /// (first sector, sectors).
    recent_prob: f64,
    recent: std::collections::VecDeque<(u64, u32)>,
}

impl<'a> Gen<'a> {
    pub(super) fn new(cfg: &'a ExploreConfig, rng: Pcg64, exec: Executor) -> Gen<'a> {
        let recent_prob = if exec.contract() == ContractKind::Prefix {
            PREFIX_RECENT_OVERWRITE
        } else {
            0.0
        };
        Gen {
            cfg,
            rng,
            side: Pcg64::seed_from_u64(crate::data::mix64(cfg.seed ^ SIDE_STREAM)),
            fail: Pcg64::seed_from_u64(crate::data::mix64(cfg.seed ^ FAILURE_STREAM)),
            aim: Pcg64::seed_from_u64(crate::data::mix64(cfg.seed ^ AIM_STREAM)),
            read_only_cycles: 0,
            exec,
            script: Vec::new(),
            ops: 0,
            cmds_per_op: 2.0,
            format_cmds: 64,
            recovery_cmds: 0,
            no_flush: false,
            fill_epochs: false,
            pair_failures: false,
            failed_write_in_epoch: false,
            failure_armed: false,
            recent_prob,
            recent: std::collections::VecDeque::new(),
        }
    }

    pub(super) fn emit(&mut self, s: Step) -> Result<(), Violation> {
        self.aim_failure(&s)?;
        self.push(s)
    }

    /// Records a step and runs it.
    fn push(&mut self, s: Step) -> Result<(), Violation> {
        if s.is_op() {
            self.ops += 1;
        }
        self.script.push(s.clone());
        if !self.pair_failures {
            return self.exec.step(&s);
        }
        let failures = self.exec.stats().program_failures_injected;
        self.exec.step(&s)?;
        let fired = self.exec.stats().program_failures_injected > failures;
        if s.is_op() && self.failure_armed {
            self.failure_armed = false;
            if !fired && self.exec.phase() == Phase::Up {
                // The operation programmed nothing (a write that stayed in
                // the merge buffer, a refused request): the failure is for
                // one that does.
                self.push(Step::FailProgram { after: 0 })?;
            }
        }
        match s {
            Step::Write { .. } if fired => self.failed_write_in_epoch = true,
            Step::Flush | Step::Barrier | Step::NewDevice => {
                self.failed_write_in_epoch = false;
            }
            _ => {}
        }
        Ok(())
    }

    /// GC victims wait for the epoch's end while at most one superblock
    /// is free or erasable (`pair_failures`).
    fn pool_low(&self) -> bool {
        self.exec
            .device_stats()
            .is_some_and(|d| d.invalid_blocks > 0 && d.free_blocks + d.erasable_blocks <= 1)
    }

    /// `aim_failure` in the failure-pair run (`pair_failures`).
    fn aim_paired_failure(&mut self, next: &Step) -> Result<(), Violation> {
        match next {
            Step::Flush | Step::Barrier if self.failed_write_in_epoch => {
                // Its first program: a pad page, or with the merge buffer
                // empty the commit page, whose failure makes a full
                // checkpoint take superblocks.
                self.failure_armed = true;
                self.push(Step::FailProgram { after: 1 })
            }
            Step::Write { .. }
                if !self.failed_write_in_epoch
                    && self.pool_low()
                    && self.aim.gen_bool(PAIRED_WRITE_FAILURES) =>
            {
                self.failure_armed = true;
                self.push(Step::FailProgram { after: 1 })
            }
            _ => Ok(()),
        }
    }

    /// Aimed failures (aimed cycles and injected failures both on): now
    /// and then, right before a flush or barrier, one of its own programs
    /// is made to fail — the first (a pad page of a merge buffer, or the
    /// commit page when nothing is pending), one of the next two (a second
    /// stream's pad, a consolidation page, the commit), or one of the
    /// first dozen (a full checkpoint after the commit) — or its first
    /// erase; right before a write, one of its first programs (its data
    /// page, or a GC destination when it collects) or its first erase.
    /// A failure the operation does not reach fires later in the cycle, as
    /// an unaimed one does. Drawn from the aimed stream.
    fn aim_failure(&mut self, next: &Step) -> Result<(), Violation> {
        let rate = self.cfg.failure_rate;
        if self.cfg.aimed_rate <= 0.0 || rate <= 0.0 || self.exec.phase() != Phase::Up {
            return Ok(());
        }
        if self.pair_failures {
            return self.aim_paired_failure(next);
        }
        let flush = matches!(next, Step::Flush | Step::Barrier);
        let p = match next {
            Step::Flush | Step::Barrier => rate * AIMED_FLUSH_FAILURES,
            Step::Write { .. } => rate * AIMED_WRITE_FAILURES,
            _ => return Ok(()),
        };
        if !self.aim.gen_bool(p.min(1.0)) {
            return Ok(());
        }
        if self.aim.gen_bool(ERASE_FAILURE_SHARE) {
            return self.push(Step::FailErase { after: 1 });
        }
        let after = match (flush, self.aim.gen_range(0..4)) {
            (_, 0) => 1,
            (true, 1 | 2) => self.aim.gen_range(2..=3),
            (true, _) => self.aim.gen_range(1..=12),
            (false, _) => self.aim.gen_range(1..=4),
        };
        self.push(Step::FailProgram { after })
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
                // Half the time the first command: most recoveries write
                // nothing, and for them that cut falls at the end of the
                // recovery (its only crash point). Otherwise anywhere up
                // to the longest recovery seen (a value past the end of
                // this one is disarmed).
                let n = if self.rng.gen_bool(0.5) {
                    0
                } else {
                    self.rng.gen_range(0..=self.recovery_cmds)
                };
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
        if !self.recent.is_empty() && self.rng.gen_bool(self.recent_prob) {
            // Overlap a recent write: start anywhere from `c - 1` sectors
            // before it to its last sector.
            let (l, k) = self.recent[self.rng.gen_range(0..self.recent.len())];
            let lo = (l + 1).saturating_sub(c);
            let hi = (l + u64::from(k) - 1).min(n - c);
            if lo <= hi {
                return self.rng.gen_range(lo..=hi);
            }
        }
        let hot = ((n as f64 * self.cfg.workload.hot_fraction) as u64).max(c);
        let span = if self.rng.gen_bool(self.cfg.workload.hot_prob) {
            hot
        } else {
            n
        };
        self.rng.gen_range(0..=span - c)
    }

    /// One workload operation (a write that would overflow the epoch bound
    /// is usually preceded by a flush, sometimes issued anyway), then now
    /// and then `check_invariants`.
    pub(super) fn op(&mut self) -> Result<(), Violation> {
        self.op_only()?;
        let scale = (65536.0 / self.exec.num_sectors().max(1) as f64).min(1.0);
        if self.exec.phase() == Phase::Up && self.rng.gen_bool(self.cfg.check_rate * scale) {
            self.emit(Step::Check)?;
        }
        Ok(())
    }

    fn op_only(&mut self) -> Result<(), Violation> {
        let w = &self.cfg.workload;
        let flush_w = if self.no_flush {
            0
        } else {
            w.flush + w.barrier
        };
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
                let over = self.rng.gen_bool(self.cfg.over_bound_prob);
                let limit = u64::from(max).max(2) * 2;
                if over && rem < limit && rem < self.exec.num_sectors() {
                    // Exactly one sector more than the epoch allows (or
                    // more, if the drawn request already is).
                    count = count.max(rem as u32 + 1);
                } else if self.fill_epochs && rem > 0 && rem < u64::from(count) {
                    count = rem as u32;
                } else if rem < u64::from(count) {
                    let barrier = self.cfg.forced_barrier_prob > 0.0
                        && self.side.gen_bool(self.cfg.forced_barrier_prob);
                    match self.end_epoch_before(count, barrier)? {
                        Some(c) => count = c,
                        None => return Ok(()),
                    }
                }
            }
            let lba = self.pick_lba(count);
            if trim {
                self.emit(Step::Trim { lba, count })
            } else {
                if self.recent_prob > 0.0 {
                    if self.recent.len() == RECENT_WRITES {
                        self.recent.pop_front();
                    }
                    self.recent.push_back((lba, count));
                }
                self.emit(Step::Write { lba, count })
            }
        } else if r < w.write + w.trim + w.flush {
            self.emit(Step::Flush)
        } else if r < w.write + w.trim + flush_w {
            self.emit(Step::Barrier)
        } else {
            let lba = self.pick_lba(count);
            self.emit(Step::Read { lba, count })
        }
    }

    /// Now and then (`failure_rate`) arms one media failure for a cycle of
    /// about `cmds` flash commands.
    fn inject_failure(&mut self, cmds: u64) -> Result<(), Violation> {
        if self.cfg.failure_rate <= 0.0 || !self.fail.gen_bool(self.cfg.failure_rate) {
            return Ok(());
        }
        if self.fail.gen_bool(ERASE_FAILURE_SHARE) {
            let after = self.fail.gen_range(1..=4);
            self.emit(Step::FailErase { after })
        } else {
            let after = self.fail.gen_range(1..=cmds.max(1));
            self.emit(Step::FailProgram { after })
        }
    }

    /// After a cycle: counts cycles that ended read-only, and replaces a
    /// device that stayed read-only for `READ_ONLY_CYCLES_MAX` of them.
    fn replace_worn_out(&mut self, read_only: bool) -> Result<(), Violation> {
        if !read_only {
            self.read_only_cycles = 0;
            return Ok(());
        }
        self.read_only_cycles += 1;
        if self.read_only_cycles < READ_ONLY_CYCLES_MAX {
            return Ok(());
        }
        self.read_only_cycles = 0;
        self.emit(Step::NewDevice)
    }

    /// True when this cycle is to be an aimed one.
    fn aim_now(&mut self) -> bool {
        self.cfg.aimed_rate > 0.0 && self.aim.gen_bool(self.cfg.aimed_rate)
    }

    /// A cycle aimed at the rare states random cycles seldom reach, where
    /// an erase destroys what the device may still need:
    ///
    /// - [`AimedKind::FullBarriers`]: on a nearly full device, epochs
    ///   ended by barriers only (no flush, so nothing syncs), with the
    ///   power cut right after the first erase. On a full device the
    ///   erasable queue holds little more than the superblocks GC freed in
    ///   the last few epochs, so the erase takes one a barrier epoch freed
    ///   while a crash may still fall back to a state that points into it.
    /// - [`AimedKind::ReopenThenErase`]: a clean reopen (flush, cut between
    ///   commands, recover), then operations until the first erase, then a
    ///   cut right after it — half the time keeping every command (a clean
    ///   reopen again), otherwise by a random policy. Epochs that a reopen
    ///   applied only because they verified are verified again at the next
    ///   one; an erase in between must not break that.
    ///
    /// Both run operations until the cut fires or a bound is reached, then
    /// crash and recover as a random cycle does.
    fn aimed_cycle(&mut self) -> Result<(), Violation> {
        let kind = if self.aim.gen_bool(0.5) {
            AimedKind::FullBarriers
        } else {
            AimedKind::ReopenThenErase
        };
        let n = self.exec.num_sectors();
        // Enough operations to fill a few superblocks' worth of sectors.
        let bound = (n / 2).clamp(64, 4096);
        match kind {
            AimedKind::FullBarriers => {
                self.fill()?;
                if self.exec.phase() != Phase::Up {
                    return self.end_aimed(false);
                }
                // Not always the first erase: it often takes a superblock
                // freed before the fill's flush (the queue is FIFO).
                let erases = self.aim.gen_range(1..=AIM_ERASES_MAX);
                self.emit(Step::ArmAfterErase { erases })?;
                for _ in 0..bound {
                    if self.exec.phase() != Phase::Up {
                        break;
                    }
                    self.barrier_write()?;
                }
                self.end_aimed(false)
            }
            AimedKind::ReopenThenErase => {
                self.emit(Step::Flush)?;
                if self.exec.phase() == Phase::Up {
                    self.clean_crash()?;
                    self.recover()?;
                }
                if self.exec.phase() != Phase::Up {
                    return Ok(());
                }
                self.emit(Step::ArmAfterErase { erases: 1 })?;
                for _ in 0..bound {
                    if self.exec.phase() != Phase::Up {
                        break;
                    }
                    self.op()?;
                }
                let clean = self.aim.gen_bool(0.5);
                self.end_aimed(clean)
            }
        }
    }

    /// Ends an aimed cycle: a crash (keeping every command if `clean`,
    /// else by a random policy) and a recovery.
    fn end_aimed(&mut self, clean: bool) -> Result<(), Violation> {
        if self.exec.phase() == Phase::Fresh {
            return Ok(());
        }
        if clean {
            self.clean_crash()?;
        } else {
            self.crash()?;
        }
        self.recover()
    }

    /// A power cut that keeps every command (a clean shutdown, as far as
    /// the flash can tell).
    fn clean_crash(&mut self) -> Result<(), Violation> {
        let seed = self.rng.gen();
        self.emit(Step::Crash {
            how: CrashHow::Policy(CrashPolicy::AllApplied),
            seed,
        })
    }

    /// Writes every sector not mapped while the device maps fewer than
    /// `AIM_FULL_SHARE` of its sectors (in runs of the workload's largest
    /// request, flushing when the epoch's budget runs out).
    fn fill(&mut self) -> Result<(), Violation> {
        let n = self.exec.num_sectors();
        let mapped = self.exec.device_stats().map_or(0, |s| s.valid_sectors);
        if (mapped as f64) >= AIM_FULL_SHARE * n as f64 {
            return Ok(());
        }
        let run = u64::from(self.cfg.workload.max_sectors.max(1));
        let mut lba = 0;
        while lba < n && self.exec.phase() == Phase::Up {
            let mut count = run.min(n - lba);
            if let Some(rem) = self.exec.epoch_remaining() {
                if rem < count {
                    self.emit(Step::Flush)?;
                    if self.exec.phase() != Phase::Up {
                        break;
                    }
                    let rem = self.exec.epoch_remaining().unwrap_or(u64::MAX);
                    count = count.min(rem);
                }
            }
            if count == 0 {
                break;
            }
            self.emit(Step::Write {
                lba,
                count: count as u32,
            })?;
            lba += count;
        }
        if self.exec.phase() == Phase::Up {
            self.emit(Step::Flush)?;
        }
        Ok(())
    }

    /// Ends the epoch (a barrier, or a flush) because a request of `count`
    /// sectors does not fit its budget; returns the request cut to the new
    /// epoch's budget, or `None` when the device went down or nothing
    /// fits.
    fn end_epoch_before(&mut self, count: u32, barrier: bool) -> Result<Option<u32>, Violation> {
        self.emit(if barrier { Step::Barrier } else { Step::Flush })?;
        if self.exec.phase() != Phase::Up {
            return Ok(None);
        }
        let rem = self.exec.epoch_remaining().unwrap_or(u64::MAX);
        let count = count.min(rem.min(u64::from(u32::MAX)) as u32);
        Ok((count > 0).then_some(count))
    }

    /// One write of the usual size and place, preceded by an epoch barrier
    /// (never a flush, unless barriers are off) when the epoch's budget
    /// does not hold it.
    fn barrier_write(&mut self) -> Result<(), Violation> {
        let max = self.cfg.workload.max_sectors.max(1);
        let mut count = if self.rng.gen_bool(0.5) {
            1
        } else {
            self.rng.gen_range(1..=max)
        };
        count = count.min(self.exec.num_sectors().min(u64::from(u32::MAX)) as u32);
        if let Some(rem) = self.exec.epoch_remaining() {
            if rem < u64::from(count) {
                // With failures injected, now and then the barrier's first
                // program fails: its pad page on a full device, where the
                // data it moves may need a new superblock.
                if self.cfg.failure_rate > 0.0 && self.aim.gen_bool(AIMED_PAD_FAILURES) {
                    self.push(Step::FailProgram { after: 1 })?;
                }
                // With barriers off (`--no-barriers`), a flush.
                let barrier = self.cfg.workload.barrier > 0;
                match self.end_epoch_before(count, barrier)? {
                    Some(c) => count = c,
                    None => return Ok(()),
                }
            }
        }
        let lba = self.pick_lba(count);
        self.emit(Step::Write { lba, count })
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

/// The kinds of aimed cycles (`Gen::aimed_cycle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AimedKind {
    FullBarriers,
    ReopenThenErase,
}

/// Runs a random campaign. `progress` is called now and then with the
/// counters and the operations done so far.
pub fn explore(
    run: &RunConfig,
    cfg: &ExploreConfig,
    progress: &mut dyn FnMut(&Stats, Duration),
) -> Report {
    let (reporter, rng) = Reporter::begin(run, cfg.seed, cfg.shrink_time);
    let data_seed = reporter.data_seed();
    let exec = match Executor::replay(run, data_seed, &[]) {
        Ok(e) => e,
        Err(v) => return reporter.failed(Stats::default(), None, v, vec![], 0),
    };
    let mut g = Gen::new(cfg, rng, exec);
    let ops_budget = cfg.ops.unwrap_or(u64::MAX);
    let mut cycles = 0u64;
    let result = (|| -> Result<(), Violation> {
        loop {
            if g.ops >= ops_budget || cfg.time.is_some_and(|t| reporter.elapsed() >= t) {
                return Ok(());
            }
            if g.exec.versions_left() < 1 << 20 {
                return Ok(());
            }
            g.format()?;
            if g.exec.phase() != Phase::Up {
                continue;
            }
            if g.aim_now() {
                g.aimed_cycle()?;
                cycles += 1;
                continue;
            }
            let len = g.cycle_len();
            g.no_flush = g.rng.gen_bool(cfg.long_epoch_prob);
            let crash = g.rng.gen_bool(cfg.crash_prob);
            let est = (g.cmds_per_op * len as f64).ceil() as u64 + 1;
            if crash {
                let n = g.rng.gen_range(0..=est);
                g.emit(Step::Arm { commands: n })?;
            }
            g.inject_failure(est)?;
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
            // A device that turned read-only (`WornOut`) is cut and
            // reopened at the end of its cycle, and replaced if it stays so.
            let read_only = g.exec.read_only();
            if crash || read_only || g.exec.phase() != Phase::Up {
                g.crash()?;
                g.recover()?;
            }
            g.replace_worn_out(read_only)?;
            cycles += 1;
            if cycles.is_multiple_of(32) {
                progress(&g.exec.stats(), reporter.elapsed());
            }
        }
    })();
    let stats = g.exec.stats();
    progress(&stats, reporter.elapsed());
    match result {
        Ok(()) => reporter.passed(stats, None),
        Err(v) => reporter.failed(stats, None, v, std::mem::take(&mut g.script), g.ops),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes in `script` that overlap one of the `RECENT_WRITES` writes
    /// before them, and all writes.
    fn overlapping(script: &[Step]) -> (usize, usize) {
        let mut recent: Vec<(u64, u64)> = Vec::new();
        let (mut hits, mut all) = (0, 0);
        for s in script {
            if let Step::Write { lba, count } = *s {
                let end = lba + u64::from(count);
                all += 1;
                if recent.iter().any(|&(a, b)| lba < b && a < end) {
                    hits += 1;
                }
                recent.push((lba, end));
                if recent.len() > RECENT_WRITES {
                    recent.remove(0);
                }
            }
        }
        (hits, all)
    }

    fn script(contract: ContractKind) -> Vec<Step> {
        let run = RunConfig {
            target: crate::target::by_name("scftl").expect("scftl"),
            contract,
            geometry: flash::Geometry::small(),
            geometry_name: "small".into(),
            mutant: ftl::Mutant::None,
            sample: 16,
            media: flash::MediaFaults::default(),
            oracle: None,
            refine: false,
        };
        let cfg = ExploreConfig::new(5);
        let exec = Executor::replay(&run, 1, &[Step::Format]).expect("formats");
        let mut g = Gen::new(&cfg, rand::SeedableRng::seed_from_u64(5), exec);
        for _ in 0..400 {
            g.op().expect("no violation");
        }
        g.script
    }

    #[test]
    fn prefix_runs_overwrite_recent_multi_sector_requests() {
        // On `small` (16k sectors) overlaps by chance are rare; under the
        // prefix contract about a third of the writes overlap a recent one,
        // so a cache that coalesces dirty sectors is exercised.
        let (hits, all) = overlapping(&script(ContractKind::Prefix));
        let (base, _) = overlapping(&script(ContractKind::Snapshot));
        assert!(hits * 5 > all, "{hits} of {all}");
        assert!(hits > 2 * base, "{hits} vs {base} without");
        let s = script(ContractKind::Prefix);
        assert!(s
            .iter()
            .any(|s| matches!(s, Step::Write { count, .. } if *count > 1)));
    }
}
