//! Helpers shared by the crashcheck integration tests.
#![allow(dead_code)]

use std::time::Duration;

use crashcheck::explore::{exhaustive, explore, ExhaustiveConfig, ExploreConfig, Failure, Report};
use crashcheck::{ContractKind, RunConfig};
use ftl::Mutant;

/// A run configuration for a target by name.
pub fn run_config(
    ftl: &str,
    contract: Option<ContractKind>,
    geometry: &str,
    mutant: Mutant,
) -> RunConfig {
    let target = crashcheck::target::by_name(ftl).expect("known target");
    RunConfig {
        target,
        contract: contract.unwrap_or(target.contract),
        geometry: crashcheck::target::geometry(geometry).expect("a checker geometry"),
        geometry_name: geometry.into(),
        mutant,
        sample: 16,
        media: flash::MediaFaults::default(),
        oracle: None,
        refine: false,
    }
}

/// A random campaign of `ops` operations with a short shrinking budget.
pub fn random(run: &RunConfig, seed: u64, ops: u64) -> Report {
    random_with(run, seed, ops, |_| {})
}

/// [`random`] with `Check` steps (the FTL's `check_invariants`) after a
/// fraction `check_rate` of the operations.
pub fn random_with_rate(run: &RunConfig, seed: u64, ops: u64, check_rate: f64) -> Report {
    random_with(run, seed, ops, |cfg| cfg.check_rate = check_rate)
}

/// [`random`] with the settings `set` changes.
pub fn random_with(
    run: &RunConfig,
    seed: u64,
    ops: u64,
    set: impl FnOnce(&mut ExploreConfig),
) -> Report {
    let mut cfg = ExploreConfig::new(seed);
    cfg.ops = Some(ops);
    cfg.shrink_time = Duration::from_secs(2);
    set(&mut cfg);
    explore(run, &cfg, &mut |_, _| {})
}

/// Panics with the violation and the shrunk script if the run failed;
/// `what` names the run.
pub fn passed(r: &Report, what: &str) {
    if let Some(f) = &r.failure {
        panic!("{what} failed: {}\nshrunk: {:#?}", f.violation, f.shrunk);
    }
}

/// Runs the seeds in order until one fails; panics if none does. Returns the
/// seed and the failure.
pub fn caught(run: &RunConfig, seeds: &[u64], ops: u64) -> (u64, Failure) {
    for &seed in seeds {
        let r = random(run, seed, ops);
        if let Some(f) = r.failure {
            return (seed, f);
        }
    }
    panic!(
        "{} with mutant {} passed {} seeds of {ops} operations against the {} contract: the checker missed it{}",
        run.target.name,
        run.mutant.name(),
        seeds.len(),
        run.contract,
        seed_search(seeds.iter().max().copied().unwrap_or(0), |seed| random(run, seed, ops)
            .failure
            .is_some())
    );
}

/// When a pinned seed no longer catches a mutant (a change to the FTL moved
/// what the seed's run does), `SCFTL_SEED_SEARCH=n` tries the `n` seeds
/// after `last` and names the first that catches, to pin instead (the test
/// still fails). Without it, says how to ask.
pub fn seed_search(last: u64, catches: impl Fn(u64) -> bool) -> String {
    let Some(n) = std::env::var("SCFTL_SEED_SEARCH")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return " (SCFTL_SEED_SEARCH=<n> tries the next n seeds)".into();
    };
    match (last + 1..=last + n).find(|&s| catches(s)) {
        Some(s) => format!("; seed {s} catches it: pin that one"),
        None => format!(
            "; none of seeds {}..={} catches it either",
            last + 1,
            last + n
        ),
    }
}

/// SCFTL on `tiny` with mutant `m` over `backend`.
pub fn scftl_tiny_on(m: Mutant, backend: crashcheck::target::BackendKind) -> RunConfig {
    let mut run = run_config("scftl", None, "tiny", m);
    run.target.backend = backend;
    run
}

/// Catches the mutant with `seed` within `ops` operations, prints how, and
/// checks the shrunk script reproduces it standalone. Returns the failure.
pub fn caught_and_replayed(run: &RunConfig, seed: u64, ops: u64) -> Failure {
    let (seed, f) = caught(run, &[seed], ops);
    eprintln!(
        "{} caught with seed {seed} after {} ops: {}\n  shrunk to {} steps: {}",
        run.mutant.name(),
        f.ops,
        f.violation,
        f.shrunk.len(),
        f.shrunk_violation
    );
    assert_replays(run, &f);
    f
}

/// Checks that the failure's shrunk script, run standalone from its data
/// seed, fails again with the very violation the shrinker recorded.
pub fn assert_replays(run: &RunConfig, f: &Failure) {
    let again = crashcheck::Executor::run(run, f.data_seed, &f.shrunk).unwrap_err();
    assert_eq!(again, f.shrunk_violation);
}

/// Asserts a random campaign passes.
pub fn passes(run: &RunConfig, seed: u64, ops: u64) -> Report {
    let r = random(run, seed, ops);
    passed(
        &r,
        &format!("{} vs {} (seed {seed})", run.target.name, run.contract),
    );
    assert!(r.stats.crashes > 0 && r.stats.crash_states_checked > 0);
    r
}

/// An exhaustive run that must pass.
pub fn exhaustive_passes(
    run: &RunConfig,
    seed: u64,
    ops: u64,
    max_outcomes: Option<u64>,
) -> Report {
    let mut cfg = ExhaustiveConfig::new(seed, ops);
    cfg.max_outcomes = max_outcomes;
    cfg.shrink_time = Duration::from_secs(2);
    let r = exhaustive(run, &cfg, &mut |_, _| {});
    passed(&r, &format!("exhaustive {}", run.target.name));
    r
}
