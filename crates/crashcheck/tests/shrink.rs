//! The shrinker on deep failures, with an unbounded budget so the results
//! are deterministic (no timing in the assertions). Seeds found with
//! `scftl crashtest --geometry tiny --ops N --seed S --shrink-seconds 0
//! --mutant M`; a change to SCFTL or to the generator can move them.

use crate::common;

use std::time::Duration;

use common::*;
use crashcheck::exec::{Phase, Step};
use crashcheck::explore::{explore, shrink, shrink_tail, ExploreConfig, Failure};
use crashcheck::target::BackendKind;
use crashcheck::{Executor, RunConfig};
use ftl::Mutant;

/// The unshrunk failure of a random campaign.
fn unshrunk(run: &RunConfig, seed: u64, ops: u64) -> Failure {
    let mut cfg = ExploreConfig::new(seed);
    cfg.ops = Some(ops);
    cfg.shrink_time = Duration::ZERO;
    let f = explore(run, &cfg, &mut |_, _| {})
        .failure
        .unwrap_or_else(|| panic!("{} with seed {seed} fails", run.mutant.name()));
    assert_eq!(f.shrunk, f.script, "a zero budget shrinks nothing");
    f
}

/// `inpage-sync-past-one-epoch` with seed 65 fails at step 107,632, and
/// its script's first format is cut: the tail search must keep the cycles
/// up to the format that completed (keeping only the first cycle, as it
/// once did, every candidate is an unformatted device that cannot fail),
/// and the failure needs only a short tail of its history. Seed 3 was the
/// one before SCFTL's erase hold moved its run (it failed at step 273,667
/// and kept 25), seed 89 the one after it (step 156,927, 1,122 kept);
/// since `open` checkpoints over a commit record its walk did not apply
/// (docs/FORMAT.md §4.8, "Recovery"), 65 is the one of seeds 1–74 whose
/// first format is cut that fails past step 100,000 within 200,000
/// operations (17,222 steps kept).
#[test]
fn a_deep_failure_keeps_only_a_short_tail() {
    let run = scftl_tiny_on(Mutant::InpageSyncPastOneEpoch, BackendKind::Ram);
    let f = unshrunk(&run, 65, 200_000);
    assert!(f.script.len() > 100_000, "{} steps", f.script.len());
    let first_recover = f
        .script
        .iter()
        .position(|s| matches!(s, Step::Recover { .. }))
        .expect("a recovery");
    let first_cycle = Executor::replay(&run, f.data_seed, &f.script[..=first_recover])
        .unwrap_or_else(|v| panic!("the first cycle passes: {v}"));
    assert_eq!(
        first_cycle.phase(),
        Phase::Fresh,
        "the first cycle's format is cut: {:?}",
        &f.script[..=first_recover]
    );
    let (tail, v) = shrink_tail(
        &run,
        f.data_seed,
        &f.script,
        f.violation.clone(),
        Duration::MAX,
    );
    eprintln!("{} steps kept of {}: {v}", tail.len(), f.script.len());
    assert!(tail.len() < 20_000, "{} steps kept", tail.len());
    assert_eq!(v.step + 1, tail.len(), "cut after the violating step");
    assert_eq!(Executor::run(&run, f.data_seed, &tail).unwrap_err(), v);
}

/// The whole shrinker, unbounded, on `delta-scan-skips-crc` with seed 2
/// (a failure at step 12,332): 5 steps, the same twice. (Seed 3, the one
/// before SCFTL's erase hold, now shrinks to 34.)
#[test]
fn an_unbounded_shrink_is_short_and_deterministic() {
    let run = scftl_tiny_on(Mutant::DeltaScanSkipsCrc, BackendKind::Ram);
    let f = unshrunk(&run, 2, 20_000);
    assert!(f.script.len() > 5_000, "{} steps", f.script.len());
    let (s, v) = shrink(
        &run,
        f.data_seed,
        &f.script,
        f.violation.clone(),
        Duration::MAX,
    );
    eprintln!("shrunk to {} steps: {v}", s.len());
    assert!(s.len() < 20, "shrunk to {} steps", s.len());
    assert_eq!(Executor::run(&run, f.data_seed, &s).unwrap_err(), v);
    let again = shrink(&run, f.data_seed, &f.script, f.violation, Duration::MAX);
    assert_eq!(again, (s, v));
}
