//! The three real FTLs meet their own contracts: seeded random campaigns on
//! `tiny` and `small`, and an exhaustive enumeration of a short workload on
//! `tiny` (every crash point, every in-flight outcome up to a cap, and a
//! power cut at every command of each recovery).

use crate::common;

use common::*;
use ftl::Mutant;

#[test]
fn scftl_meets_the_snapshot_contract() {
    let r = passes(&run_config("scftl", None, "tiny", Mutant::None), 1, 8000);
    assert!(r.stats.crashes_during_recovery > 0, "{:?}", r.stats);
    passes(&run_config("scftl", None, "small", Mutant::None), 2, 800);
}

#[test]
fn async_meets_the_async_contract() {
    passes(&run_config("async", None, "tiny", Mutant::None), 1, 8000);
    passes(&run_config("async", None, "small", Mutant::None), 2, 300);
}

#[test]
fn sync_meets_the_sync_contract() {
    passes(&run_config("sync", None, "tiny", Mutant::None), 1, 8000);
    passes(&run_config("sync", None, "small", Mutant::None), 2, 300);
}

#[test]
fn scftl_exhaustive_on_tiny() {
    let r = exhaustive_passes(
        &run_config("scftl", None, "tiny", Mutant::None),
        1,
        4,
        Some(64),
    );
    let x = r.exhaustive.unwrap();
    eprintln!("{x:?}");
    assert!(
        x.crash_points >= 20 && x.distinct_crash_states > 100,
        "{x:?}"
    );
}
