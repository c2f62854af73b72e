//! Shrinking: turns a failing script into a short one that still fails
//! (with any violation), by deleting and simplifying steps and keeping
//! every change the executor confirms. Scripts are plain data and every
//! script is well-defined, so each candidate is just a shorter or simpler
//! list, replayed from scratch.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use flash::CrashPolicy;

use crate::exec::{CrashHow, Executor, Phase, RunConfig, Step, Violation};

/// Where the script's crash cycles start: 0, and right after each
/// `Recover` step but the last step (so the last cycle, the failing one
/// in a shrunk script, is never empty).
fn cycle_starts(script: &[Step]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            script
                .iter()
                .enumerate()
                .filter(|(i, s)| matches!(s, Step::Recover { .. }) && i + 1 < script.len())
                .map(|(i, _)| i + 1),
        )
        .collect()
}

/// The state of a shrink: the smallest failing script so far, its
/// violation, and the budget.
struct Shrinker<'a> {
    run: &'a RunConfig,
    data_seed: u64,
    best: Vec<Step>,
    best_v: Violation,
    start: Instant,
    budget: Duration,
}

impl<'a> Shrinker<'a> {
    fn new(
        run: &'a RunConfig,
        data_seed: u64,
        script: &[Step],
        violation: Violation,
        budget: Duration,
    ) -> Shrinker<'a> {
        Shrinker {
            run,
            data_seed,
            best: script.to_vec(),
            best_v: violation,
            start: Instant::now(),
            budget,
        }
    }

    fn out_of_time(&self) -> bool {
        self.start.elapsed() >= self.budget
    }

    /// The violation `cand` shows, if any.
    fn fails(&self, cand: &[Step]) -> Option<Violation> {
        Executor::run(self.run, self.data_seed, cand).err()
    }

    /// Makes `cand` the best script, cut right after the step that fails.
    fn accept(&mut self, mut cand: Vec<Step>, v: Violation) {
        cand.truncate(v.step + 1);
        self.best = cand;
        self.best_v = v;
    }

    /// Keeps `cand` if it fails. A prefix of `best` that stops before the
    /// violating step is not replayed: it replays as `best` does up to
    /// there, so it passes.
    fn try_candidate(&mut self, cand: Vec<Step>) -> bool {
        if cand.len() <= self.best_v.step && self.best.starts_with(&cand) {
            return false;
        }
        match self.fails(&cand) {
            Some(v) => {
                self.accept(cand, v);
                true
            }
            None => false,
        }
    }

    /// The number of leading cycles of `best` after which a format has
    /// completed (the device is no longer fresh), if any.
    fn format_cycles(&self, cuts: &[usize]) -> Option<usize> {
        let mut e = Executor::new(self.run.clone(), self.data_seed).ok()?;
        let mut c = 1;
        for (i, s) in self.best.iter().enumerate() {
            if c >= cuts.len() {
                break;
            }
            e.step(s).ok()?;
            if i + 1 == cuts[c] {
                if e.phase() != Phase::Fresh {
                    return Some(c);
                }
                c += 1;
            }
        }
        None
    }

    /// Phase 0, for deep failures (hundreds of thousands of steps, where
    /// every candidate of the later phases is a long replay): keep the
    /// cycles up to the first completed format (not just the first cycle:
    /// random scripts often start with a format a power cut interrupts,
    /// and without a formatted device no candidate can fail) and only the
    /// last `k` cycles, with `k` found by doubling (1, 2, 4, ...) and then
    /// bisecting between the last `k` that passed and the first that
    /// failed. A failing candidate is cut after its violating step, which
    /// may come long before its end (another violation); bisecting stops
    /// where no candidate left would be shorter. Each candidate replays in
    /// time proportional to what it keeps, so this costs a few replays of
    /// the tail it finds. Most failures need only recent history; one that
    /// needs it all costs about two replays of the script.
    fn suffix(&mut self) -> bool {
        let cuts = cycle_starts(&self.best);
        let ncy = cuts.len();
        let Some(b) = self.format_cycles(&cuts) else {
            return false;
        };
        if b + 1 >= ncy {
            return false;
        }
        // Cycles after the format's, the failing last one included:
        // keeping all of them is `best` itself.
        let avail = ncy - b;
        let cand = |best: &[Step], k: usize| {
            let mut c = best[..cuts[b]].to_vec();
            c.extend_from_slice(&best[cuts[ncy - k]..]);
            c
        };
        // Steps of the candidate that keeps `k` cycles.
        let len = |k: usize| cuts[b] + self.best.len() - cuts[ncy - k];
        // Keeping `lo` cycles passes (0: nothing kept); keeping `hi` or
        // more is no shorter than `found`, the shortest failing candidate
        // so far once cut after its violating step (a candidate may fail
        // long before its end, with another violation).
        let (mut lo, mut hi) = (0, avail);
        let mut found: Option<(Vec<Step>, Violation)> = None;
        let mut k = 1;
        while k < avail && !self.out_of_time() {
            let c = cand(&self.best, k);
            if let Some(v) = self.fails(&c) {
                hi = k;
                found = Some((c, v));
                break;
            }
            lo = k;
            k *= 2;
        }
        while !self.out_of_time() {
            if let Some((_, v)) = &found {
                while hi > lo + 1 && len(hi - 1) > v.step {
                    hi -= 1;
                }
            }
            if hi <= lo + 1 {
                break;
            }
            let mid = lo + (hi - lo) / 2;
            let c = cand(&self.best, mid);
            if let Some(v) = self.fails(&c) {
                hi = mid;
                found = Some((c, v));
            } else {
                lo = mid;
            }
        }
        match found {
            Some((c, v)) => {
                self.accept(c, v);
                true
            }
            None => false,
        }
    }

    /// Phase 1: remove a run of whole crash cycles (ddmin over the cycle
    /// boundaries, halving the run length); stops at the first removal
    /// that still fails, so the caller starts over with phase 0 on the
    /// shorter script (a shorter tail often fails then). A candidate
    /// without a completed format simply does not fail.
    fn cycles(&mut self) -> bool {
        let cuts = cycle_starts(&self.best);
        let mut chunk = (cuts.len() / 2).max(1);
        loop {
            let mut i = 0;
            // The last cycle (the failing one) is never removed.
            while i + chunk < cuts.len() {
                if self.out_of_time() {
                    return false;
                }
                let (a, b) = (cuts[i], cuts[i + chunk]);
                let mut cand = self.best[..a].to_vec();
                cand.extend_from_slice(&self.best[b..]);
                if self.try_candidate(cand) {
                    return true;
                }
                i += chunk;
            }
            if chunk == 1 {
                return false;
            }
            chunk /= 2;
        }
    }

    /// Phase 2: remove a run of operations (ddmin-style, halving the run
    /// length); stops at the first removal that still fails, as phase 1.
    fn op_runs(&mut self) -> bool {
        let ops: Vec<usize> = self
            .best
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_op())
            .map(|(i, _)| i)
            .collect();
        let mut chunk = (ops.len() / 2).max(1);
        while !ops.is_empty() {
            for w in ops.chunks(chunk) {
                if self.out_of_time() {
                    return false;
                }
                let drop: HashSet<usize> = w.iter().copied().collect();
                let cand: Vec<Step> = self
                    .best
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !drop.contains(i))
                    .map(|(_, s)| s.clone())
                    .collect();
                if self.try_candidate(cand) {
                    return true;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
        false
    }

    /// Phase 3: remove single steps of any kind (power cuts, crashes,
    /// recoveries, a format that a later one repeats), last first.
    fn singles(&mut self) -> bool {
        let mut progress = false;
        for i in (0..self.best.len()).rev() {
            if self.out_of_time() {
                break;
            }
            if i >= self.best.len() {
                continue;
            }
            let mut cand = self.best.clone();
            cand.remove(i);
            if self.try_candidate(cand) {
                progress = true;
            }
        }
        progress
    }

    /// Phase 4: move power cuts and injected media failures earlier, make
    /// multi-sector requests single, crash outcomes one policy for every
    /// page, and recoveries skip the invariant check.
    fn simplify(&mut self) -> bool {
        let mut progress = false;
        for i in 0..self.best.len() {
            // A candidate that fails sooner cuts `best` short.
            if self.out_of_time() || i >= self.best.len() {
                break;
            }
            let smaller: Vec<Step> = match self.best[i] {
                Step::Arm { commands } if commands > 0 => vec![0, commands / 2, commands - 1]
                    .into_iter()
                    .map(|c| Step::Arm { commands: c })
                    .collect(),
                Step::FailProgram { after } if after > 1 => vec![1, after / 2, after - 1]
                    .into_iter()
                    .map(|a| Step::FailProgram { after: a.max(1) })
                    .collect(),
                Step::FailErase { after } if after > 1 => vec![Step::FailErase { after: 1 }],
                Step::ArmAfterErase { erases } if erases > 1 => {
                    vec![Step::ArmAfterErase { erases: 1 }]
                }
                // The crash outcome, simplified: one fixed policy for every
                // page in flight instead of a per-page draw.
                Step::Crash {
                    how: CrashHow::Policy(CrashPolicy::Random) | CrashHow::Outcome(_),
                    seed,
                } => [
                    CrashPolicy::NoneApplied,
                    CrashPolicy::AllApplied,
                    CrashPolicy::AllGarbage,
                ]
                .into_iter()
                .map(|p| Step::Crash {
                    how: CrashHow::Policy(p),
                    seed,
                })
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
                let mut cand = self.best.clone();
                cand[i] = s;
                if self.try_candidate(cand) {
                    progress = true;
                    break;
                }
            }
        }
        progress
    }
}

/// Shrinks a failing script, keeping every change that still fails (with
/// any violation), within `budget`:
///
/// 0. keep the cycles up to the first completed format and only the
///    shortest tail of cycles that still fails (doubling, then bisecting:
///    a few replays of the tail, so deep failures get cheap tries first);
/// 1. remove a run of whole crash cycles (ddmin);
/// 2. remove a run of operations (ddmin);
/// 3. remove single steps of any kind (injected media failures included);
/// 4. move power cuts and failures earlier and simplify crash outcomes to
///    one policy for every page;
///
/// starting over at phase 0 after any change (phases 1 and 2 stop at the
/// first removal; 3 and 4 make a whole pass): a shorter script often has a
/// much shorter failing tail. Every candidate is shorter or simpler than
/// the best script so far, so this ends. Deterministic but for the budget:
/// the candidates depend only on the script, so an unbounded budget
/// (`Duration::MAX`) always gives the same result.
///
/// Measured on `tiny` (release build, a loaded 2-core machine, about 6 µs
/// a replayed step): `scftl crashtest --ftl scftl --geometry tiny --seed 3
/// --ops 1000000 --mutant inpage-sync-past-one-epoch` fails at step
/// 455,763 and shrinks to 66 steps in 3–4 s (under 1,000 after about 3 s;
/// before phase 0 looked past the script's cut first format, to about
/// 200k in the default 20 s); `--seed 5 --ops 1000000 --spare-superblocks
/// 2 --inject-failures 0.3 --aimed 0.05 --mutant
/// victims-erasable-before-commit` (step 599,491) to 55 steps in about
/// 1 s.
pub fn shrink(
    run: &RunConfig,
    data_seed: u64,
    script: &[Step],
    violation: Violation,
    budget: Duration,
) -> (Vec<Step>, Violation) {
    let mut s = Shrinker::new(run, data_seed, script, violation, budget);
    // Start over after any change: a shorter script often has a shorter
    // failing tail, and larger runs to remove.
    while !s.out_of_time() {
        if !(s.suffix() || s.cycles() || s.op_runs() || s.singles() || s.simplify()) {
            break;
        }
    }
    (s.best, s.best_v)
}

/// Phase 0 of [`shrink`] alone: the cycles up to the first completed format
/// followed by the shortest tail of cycles that still fails (the script
/// unchanged if none does), within `budget`.
pub fn shrink_tail(
    run: &RunConfig,
    data_seed: u64,
    script: &[Step],
    violation: Violation,
    budget: Duration,
) -> (Vec<Step>, Violation) {
    let mut s = Shrinker::new(run, data_seed, script, violation, budget);
    s.suffix();
    (s.best, s.best_v)
}
