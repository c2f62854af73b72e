//! Shrinking: turns a failing script into a short one that still fails
//! (with any violation), by deleting and simplifying steps and keeping
//! every change the executor confirms. Scripts are plain data and every
//! script is well-defined, so each candidate is just a shorter or simpler
//! list, replayed from scratch.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use flash::CrashPolicy;

use crate::exec::{CrashHow, Executor, RunConfig, Step, Violation};

/// Where the script's crash cycles start: 0, and right after each
/// `Recover` step.
fn cycle_starts(script: &[Step]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            script
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s, Step::Recover { .. }))
                .map(|(i, _)| i + 1),
        )
        .collect()
}

/// Shrinks a failing script: first try the format's cycle with only the
/// last 1, 2, 4, ... cycles (cheap replays of deep failures), then drop
/// whole crash cycles, then runs of operations, then single steps
/// (injected media failures included), then move power cuts and failures
/// earlier and simplify crash outcomes to one policy for every page; keep
/// every change that still fails (with any violation). Bounded by
/// `budget`.
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
        // 0. Deep failures (hundreds of thousands of steps) make every
        //    candidate of the loop below a long replay. Cheap candidates
        //    first: the first cycle (the format) followed by only the last k
        //    cycles, k = 1, 2, 4, ... — most failures need only recent
        //    history, and each such candidate replays in time proportional to
        //    k.
        let cuts = cycle_starts(&best);
        let ncy = cuts.len();
        let mut k = 1;
        while ncy > 2 && k < ncy - 1 && !out_of_time(&start) {
            let mut cand = best[..cuts[1]].to_vec();
            cand.extend_from_slice(&best[cuts[ncy - k]..]);
            if try_candidate(cand, &mut best, &mut best_v) {
                progress = true;
                break;
            }
            k *= 2;
        }
        if progress {
            continue;
        }
        // 1. Remove chunks of steps that form whole cycles: cut at indices
        //    right after a Recover step (chunk = steps between cut points).
        let cuts = cycle_starts(&best);
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
        // 4. Move power cuts and injected media failures earlier, and make
        //    multi-sector requests single.
        for i in 0..best.len() {
            // A candidate that fails sooner cuts `best` short.
            if out_of_time(&start) || i >= best.len() {
                break;
            }
            let smaller: Vec<Step> = match best[i] {
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
