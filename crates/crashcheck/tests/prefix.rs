//! The prefix contract (`PrefixSpec`, OPTR's guarantees: after a crash the
//! device is the state after a prefix of the acknowledged requests, with
//! everything before the last completed flush, each request whole) against
//! the FTLs we have. SCFTL passes it: its crash states are flush points,
//! which are prefixes. The async FTL fails it (writes since a flush
//! survive a crash in any combination). The sync FTL fails it too: a
//! completed write is durable, but a multi-sector write is programmed page
//! by page, so a crash inside one leaves part of the request. The toy
//! canary that commits half a request is caught; the correct toy passes.

use crate::common;

use common::*;
use crashcheck::ContractKind;
use ftl::Mutant;

fn prefix(ftl: &str) -> crashcheck::RunConfig {
    run_config(ftl, Some(ContractKind::Prefix), "tiny", Mutant::None)
}

// The random and the exhaustive half are two tests so that the harness
// runs them on both cores.
#[test]
fn scftl_passes_the_prefix_contract_random() {
    let run = prefix("scftl");
    for seed in [1, 2, 3] {
        let r = passes(&run, seed, 4000);
        assert!(r.stats.crashes_during_recovery > 0, "{:?}", r.stats);
    }
}

#[test]
fn scftl_passes_the_prefix_contract_exhaustive() {
    let run = prefix("scftl");
    let r = exhaustive_passes(&run, 1, 4, None);
    let x = r.exhaustive.expect("exhaustive stats");
    assert!(x.distinct_crash_states > 0 && x.nested_crash_states > 0);
}

#[test]
fn the_async_ftl_fails_the_prefix_contract() {
    let (_, f) = caught(&prefix("async"), &[1, 2, 3], 2000);
    assert!(
        f.violation.message.contains("prefix"),
        "{}",
        f.violation.message
    );
}

#[test]
fn the_sync_ftl_fails_the_prefix_contract_on_a_torn_multi_sector_write() {
    let (_, f) = caught(&prefix("sync"), &[1, 2, 3], 2000);
    // The shrunk script ends in an interrupted write of several sectors.
    assert!(
        f.shrunk.iter().any(|s| matches!(
            s,
            crashcheck::Step::Write { count, .. } if *count > 1
        )),
        "{:#?}",
        f.shrunk
    );
}

#[test]
fn the_toy_passes_and_its_request_splitting_canary_is_caught() {
    passes(&prefix("toy"), 5, 3000);
    exhaustive_passes(&prefix("toy"), 3, 5, None);
    caught(&prefix("toy-split-requests"), &[1, 2, 3], 2000);
}
