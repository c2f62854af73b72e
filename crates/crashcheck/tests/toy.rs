//! The checker against its own toy FTL: the correct one passes random and
//! exhaustive campaigns, each canary is caught, a harmless variant is not
//! flagged, and runs replay exactly from their seed.

use crate::common;

use common::*;
use crashcheck::ContractKind;
use ftl::Mutant;

#[test]
fn toy_passes_random_and_exhaustive_campaigns() {
    let run = run_config("toy", None, "tiny", Mutant::None);
    passes(&run, 7, 3000);
    let r = exhaustive_passes(&run, 3, 5, None);
    let x = r.exhaustive.unwrap();
    assert!(x.distinct_crash_states > 50, "{x:?}");
    assert!(x.crash_points > 10, "{x:?}");
}

#[test]
fn canary_overwrite_live_is_caught_and_the_shrunk_script_replays() {
    let run = run_config("toy-overwrite-live", None, "tiny", Mutant::None);
    let (_, f) = caught(&run, &[1, 2, 3], 2000);
    assert!(f.shrunk.len() <= f.script.len());
    assert_replays(&run, &f);
}

#[test]
fn canary_trust_unsynced_commit_is_caught() {
    let run = run_config("toy-trust-unsynced-commit", None, "tiny", Mutant::None);
    caught(&run, &[1, 2, 3], 5000);
}

#[test]
fn harmless_missing_sync_is_not_flagged() {
    // The checksum rejects a commit whose data did not make it, and the old
    // snapshot is intact: no contract is broken, and the checker must agree.
    let run = run_config("toy-skip-sync-only", None, "tiny", Mutant::None);
    passes(&run, 11, 5000);
}

#[test]
fn the_toy_snapshot_device_also_meets_the_weaker_contracts() {
    for c in [ContractKind::Async, ContractKind::Sync] {
        let run = run_config("toy", Some(c), "tiny", Mutant::None);
        if c == ContractKind::Sync {
            // Completed writes are lost at a crash: not a sync disk.
            caught(&run, &[1, 2], 2000);
        } else {
            passes(&run, 5, 2000);
        }
    }
}

#[test]
fn a_seed_replays_exactly() {
    let run = run_config("toy", None, "tiny", Mutant::None);
    let a = random(&run, 42, 1500);
    let b = random(&run, 42, 1500);
    assert_eq!(a.stats, b.stats);
    let c = random(&run, 43, 1500);
    assert_ne!(a.stats, c.stats);
}
