//! The exploration: every state of each contract checked, failures grouped
//! by flush interval and minimized, and the report.
//!
//! A state whose content an earlier state (of any contract) already had is
//! not checked again: its verdict is reused (the contracts nest — every
//! snapshot state is a prefix state, every prefix state an async state —
//! so `all` costs little more than `async`).
//!
//! Minimizing a failure: within a flush interval, the failing state that
//! drops the fewest of the interval's writes is taken, and then each
//! write it drops is put back, one at a time, keeping it back while the
//! check still fails (at most `minimize_budget` extra checks per
//! interval). What is left dropped is needed for the failure: a small,
//! concrete "these writes did not reach the disk".

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::check::{Check, Verdict};
use crate::image::{order, Images};
use crate::states::{last_flush_before, plan, Bounds, Contract, Fingerprints, State};
use crate::trace::{Op, Trace};

/// How to explore.
#[derive(Clone, Debug)]
pub struct Options {
    pub contracts: Vec<Contract>,
    pub bounds: Bounds,
    /// Most states checked per contract; beyond it, a seeded sample.
    pub max_states: usize,
    /// Extra checks spent minimizing each failing interval.
    pub minimize_budget: usize,
    /// Where images are written.
    pub workdir: PathBuf,
    /// Print progress to stderr.
    pub progress: bool,
    /// Set (by a signal handler) to stop between two states: the
    /// exploration then fails with what it had checked.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// One failing flush interval.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    /// The flush op the minimized state follows (None: none before it).
    pub after_flush: Option<usize>,
    /// Failing states in the interval.
    pub failing: usize,
    /// The first failing state, and why it failed.
    pub first: String,
    pub why: String,
    /// The minimized failing state: its id, and the writes since the last
    /// flush that it lacks (each `#op write conn C sectors L+N`), up to the
    /// next flush.
    pub minimized: String,
    pub minimized_why: String,
    pub dropped: Vec<String>,
}

/// What one contract came to.
#[derive(Clone, Debug, Serialize)]
pub struct ContractReport {
    pub contract: &'static str,
    /// States the contract allows (async: sum of 2^writes per interval).
    pub possible: f64,
    /// Distinct states (content) among those listed.
    pub distinct: usize,
    /// Whether intervals or the whole list were sampled.
    pub sampled: bool,
    /// States whose verdict this contract needed, and how many of them
    /// were checked now (the rest were reused).
    pub states: usize,
    pub checked: usize,
    pub failed: usize,
    pub seconds: f64,
    pub failures: Vec<Failure>,
}

/// The whole exploration.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub ops: usize,
    pub writes: usize,
    pub flushes: usize,
    pub barriers: usize,
    pub contracts: Vec<ContractReport>,
    /// Check runs in all, and their rate.
    pub checks: usize,
    pub checks_per_second: f64,
}

impl Report {
    pub fn failed(&self) -> bool {
        self.contracts.iter().any(|c| c.failed > 0)
    }
}

/// Checks states, caching verdicts by content.
struct Explorer<'t> {
    trace: &'t Trace,
    fps: Fingerprints<'t>,
    images: Images<'t>,
    checker: &'t dyn Check,
    verdicts: HashMap<u64, Verdict>,
    checks: usize,
    check_time: f64,
}

impl Explorer<'_> {
    fn verdict(&mut self, st: &State, fp: u64, fresh: bool) -> Result<(Verdict, bool), String> {
        if let Some(v) = self.verdicts.get(&fp) {
            return Ok((v.clone(), false));
        }
        let t = Instant::now();
        let path = if fresh {
            self.images.fresh(st)?
        } else {
            self.images.state(st)?
        }
        .to_path_buf();
        let v = self.checker.check(&path, &st.id())?;
        self.check_time += t.elapsed().as_secs_f64();
        self.checks += 1;
        self.verdicts.insert(fp, v.clone());
        Ok((v, true))
    }

    fn describe(&self, i: usize) -> String {
        let e = &self.trace.ops[i];
        let (lba, n) = e.op.range().unwrap_or((0, 0));
        let what = match e.op {
            Op::Trim { .. } => "trim",
            Op::Write { data: None, .. } => "zero write",
            _ => "write",
        };
        format!("#{i} {what} conn {} sectors {lba}+{n}", e.origin)
    }

    /// Puts dropped writes back while the state still fails.
    fn minimize(
        &mut self,
        st: &State,
        why: &str,
        budget: usize,
    ) -> Result<(State, String), String> {
        let mut cur = st.clone();
        let mut why = why.to_string();
        // Writes after `upto` in the interval are dropped too: try adding
        // them by raising `upto` first (the next flush bounds it).
        let next_flush = next_flush_from(self.trace, cur.upto);
        let mut candidates: Vec<usize> = cur.dropped.clone();
        candidates.extend((cur.upto..next_flush).filter(|&i| self.trace.ops[i].op.changes()));
        let mut spent = 0;
        for c in candidates {
            if spent >= budget {
                break;
            }
            let mut trial = cur.clone();
            if c < trial.upto {
                trial.dropped.retain(|&d| d != c);
            } else {
                // Keep op c: everything between the old upto and c is
                // dropped, c itself kept.
                let old = trial.upto;
                trial.upto = c + 1;
                trial
                    .dropped
                    .extend((old..c).filter(|&i| self.trace.ops[i].op.changes()));
            }
            let fp = self.fps.of(&trial);
            let (v, checked) = self.verdict(&trial, fp, true)?;
            spent += usize::from(checked);
            if !v.ok {
                cur = trial;
                why = v.why;
            }
        }
        // A dropped write with no write after it is the same state as a
        // smaller upto.
        while let Some(&d) = cur.dropped.last() {
            if (d + 1..cur.upto).any(|i| self.trace.ops[i].op.changes()) {
                break;
            }
            cur.dropped.pop();
            cur.upto = d;
        }
        Ok((cur, why))
    }
}

/// Explores `trace` under each contract of `opt`, checking with `checker`.
pub fn explore(trace: &Trace, checker: &dyn Check, opt: &Options) -> Result<Report, String> {
    let images = Images::new(trace, &opt.workdir)?;
    let mut ex = Explorer {
        trace,
        fps: Fingerprints::new(trace),
        images,
        checker,
        verdicts: HashMap::new(),
        checks: 0,
        check_time: 0.0,
    };
    let count = |f: fn(&Op) -> bool| trace.ops.iter().filter(|e| f(&e.op)).count();
    let mut report = Report {
        ops: trace.ops.len(),
        writes: count(Op::changes),
        flushes: count(|o| *o == Op::Flush),
        barriers: count(|o| *o == Op::Barrier),
        contracts: Vec::new(),
        checks: 0,
        checks_per_second: 0.0,
    };
    let started = Instant::now();
    for &c in &opt.contracts {
        let t = Instant::now();
        let mut p = plan(trace, &ex.fps, c, opt.bounds);
        let distinct = p.states.len();
        if p.states.len() > opt.max_states {
            p.sampled = true;
            sample(&mut p.states, opt.max_states, opt.bounds.seed);
        }
        order(trace, &mut p.states);
        let mut r = ContractReport {
            contract: c.name(),
            possible: p.possible,
            distinct,
            sampled: p.sampled,
            states: p.states.len(),
            checked: 0,
            failed: 0,
            seconds: 0.0,
            failures: Vec::new(),
        };
        // Failing states and their group: async, the flush interval;
        // snapshot and prefix, a run of consecutive failing states.
        let mut failing: Vec<(usize, State, String)> = Vec::new();
        let mut run_id = 0;
        let mut prev_failed = false;
        let mut last_print = Instant::now();
        for (k, (st, fp)) in p.states.iter().enumerate() {
            if opt
                .stop
                .as_ref()
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst))
            {
                return Err(format!(
                    "interrupted: {} states checked, {k} of {} {} states",
                    ex.checks,
                    p.states.len(),
                    c.name()
                ));
            }
            let (v, checked) = ex.verdict(st, *fp, false)?;
            r.checked += usize::from(checked);
            if !v.ok {
                r.failed += 1;
                let group = match c {
                    Contract::Async => last_flush_before(trace, st.upto),
                    _ => {
                        run_id += usize::from(!prev_failed);
                        run_id
                    }
                };
                failing.push((group, st.clone(), v.why));
            }
            prev_failed = !v.ok;
            if opt.progress && last_print.elapsed().as_secs_f64() > 2.0 {
                last_print = Instant::now();
                eprintln!(
                    "scftl explore: {}: {}/{} states, {} failed",
                    c.name(),
                    k + 1,
                    p.states.len(),
                    r.failed
                );
            }
        }
        let mut groups: Vec<usize> = failing.iter().map(|f| f.0).collect();
        groups.dedup();
        for g in groups {
            let group: Vec<&(usize, State, String)> = failing.iter().filter(|f| f.0 == g).collect();
            let first = group[0];
            let best = group
                .iter()
                .min_by_key(|f| (lost(trace, &f.1).len(), std::cmp::Reverse(f.1.upto)))
                .expect("a group has a state");
            let (min, min_why) = match c {
                Contract::Async => ex.minimize(&best.1, &best.2, opt.minimize_budget)?,
                _ => (best.1.clone(), best.2.clone()),
            };
            let dropped = lost(trace, &min)
                .into_iter()
                .map(|d| ex.describe(d))
                .collect();
            r.failures.push(Failure {
                after_flush: last_flush_before(trace, min.upto).checked_sub(1),
                failing: group.len(),
                first: first.1.id(),
                why: first.2.clone(),
                minimized: min.id(),
                minimized_why: min_why,
                dropped,
            });
        }
        r.seconds = t.elapsed().as_secs_f64();
        report.contracts.push(r);
    }
    report.checks = ex.checks;
    let secs = started.elapsed().as_secs_f64();
    report.checks_per_second = if secs > 0.0 {
        ex.checks as f64 / secs
    } else {
        0.0
    };
    Ok(report)
}

/// Index of the first flush at or after `from` (the op count if none).
fn next_flush_from(trace: &Trace, from: usize) -> usize {
    trace.ops[from..]
        .iter()
        .position(|e| e.op == Op::Flush)
        .map_or(trace.ops.len(), |k| from + k)
}

/// The writes a state lacks of those issued before the next flush: its
/// dropped writes, and the writes after `upto` up to the next flush.
fn lost(trace: &Trace, st: &State) -> Vec<usize> {
    let next = next_flush_from(trace, st.upto);
    let mut v = st.dropped.clone();
    v.extend((st.upto..next).filter(|&i| trace.ops[i].op.changes()));
    v
}

/// Keeps `n` of `states`, chosen with `seed` (the first and last always).
fn sample(states: &mut Vec<(State, u64)>, n: usize, seed: u64) {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    if states.len() <= n || n < 2 {
        states.truncate(n.max(1));
        return;
    }
    let last = states.pop().expect("non-empty");
    let first = states.remove(0);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut rest: Vec<(State, u64)> = std::mem::take(states);
    rest.shuffle(&mut rng);
    rest.truncate(n - 2);
    states.push(first);
    states.extend(rest);
    states.push(last);
}

/// Checks one state (a replay), keeping its image at `keep` if given.
pub fn replay(
    trace: &Trace,
    checker: &dyn Check,
    st: &State,
    workdir: &Path,
    keep: Option<&Path>,
) -> Result<Verdict, String> {
    let image = workdir.join("state.img");
    crate::image::write_state(trace, st, &image)?;
    if let Some(k) = keep {
        std::fs::copy(&image, k).map_err(|e| format!("--keep {}: {e}", k.display()))?;
    }
    checker.check(&image, &st.id())
}

/// The report as text: a table of contracts, then each failure.
pub fn render(r: &Report, replay_cmd: &dyn Fn(&str) -> String) -> String {
    let mut s = format!(
        "trace: {} ops ({} writes/trims, {} flushes, {} internal barriers)\n\n",
        r.ops, r.writes, r.flushes, r.barriers
    );
    s.push_str(&format!(
        "{:<9} {:>14} {:>9} {:>8} {:>8} {:>7} {:>8}\n",
        "contract", "states allowed", "distinct", "checked", "reused", "failed", "seconds"
    ));
    for c in &r.contracts {
        s.push_str(&format!(
            "{:<9} {:>14} {:>9} {:>8} {:>8} {:>7} {:>8.1}{}\n",
            c.contract,
            fmt_possible(c.possible),
            c.distinct,
            c.checked,
            c.states - c.checked,
            c.failed,
            c.seconds,
            if c.sampled { "  (sampled)" } else { "" }
        ));
    }
    s.push_str(&format!(
        "\n{} checks, {:.1} states/s\n",
        r.checks, r.checks_per_second
    ));
    for c in &r.contracts {
        for f in &c.failures {
            let after = match f.after_flush {
                Some(op) => format!("after the flush at op #{op}"),
                None => "before the first flush".into(),
            };
            s.push_str(&format!(
                "\nFAIL {}: {} failing state{}\n  first:     {} — {}\n  minimized: {} ({after}) — {}\n",
                c.contract,
                f.failing,
                if f.failing == 1 { "" } else { "s" },
                f.first,
                f.why,
                f.minimized,
                f.minimized_why
            ));
            if f.dropped.is_empty() {
                s.push_str("  it lacks no write: the crash came right at a flush, or at the end\n");
            } else {
                s.push_str("  the writes since that flush that it lacks (not yet on the disk at the crash):\n");
                for d in f.dropped.iter().take(12) {
                    s.push_str(&format!("    {d}\n"));
                }
                if f.dropped.len() > 12 {
                    s.push_str(&format!("    … and {} more\n", f.dropped.len() - 12));
                }
            }
            s.push_str(&format!("  replay: {}\n", replay_cmd(&f.minimized)));
        }
    }
    s
}

/// A state count as text: exact below 10^12, else a power of two.
pub fn fmt_possible(p: f64) -> String {
    if p < 1e12 {
        format!("{p:.0}")
    } else {
        format!("~2^{:.0}", p.log2())
    }
}
