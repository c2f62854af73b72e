//! Epoch barriers under the crash checker: the generator issues them, the
//! snapshot contract lets a crash return to any completed barrier since the
//! last completed flush (and nothing else), and every FTL takes them.
//!
//! SCFTL's rule that an erase syncs first while a barrier's epoch is
//! unsynced is checked where it matters, on flash with bad superblocks
//! (the `erase-without-sync-after-barrier` mutant,
//! `tests/failure_mutants.rs`, which says why healthy flash hides it).

use crate::common;

use common::*;
use crashcheck::target::BackendKind;
use ftl::Mutant;

#[test]
fn scftl_passes_the_same_runs_with_barriers() {
    for (backend, seed, ops) in [(BackendKind::Ram, 3, 6000), (BackendKind::Image, 7, 7000)] {
        let r = passes(&scftl_tiny_on(Mutant::None, backend), seed, ops);
        assert!(r.stats.barriers > ops / 20, "{} barriers", r.stats.barriers);
        assert!(r.stats.flushes > 0);
    }
}

#[test]
fn every_target_takes_barriers() {
    for ftl in ["async", "sync", "optr"] {
        let r = passes(&run_config(ftl, None, "tiny", Mutant::None), 1, 1500);
        assert!(r.stats.barriers > 0, "{ftl}: no barrier issued");
    }
}

/// `--sync-behind`: after every barrier, the sync `scftl serve`'s
/// background thread runs (`BlockDevice::begin_sync_behind`, its wait,
/// `finish_flush`, and SCFTL's erase ahead), under the snapshot contract
/// and the refinement oracle, with power cuts before its record
/// (`finish_sync` is a command) and in its erases.
#[test]
fn scftl_passes_with_a_sync_behind_every_barrier() {
    let mut run = scftl_tiny_on(Mutant::None, BackendKind::Ram);
    run.target.sync_behind = true;
    run.refine = true;
    let r = passes(&run, 60, 6000);
    assert!(r.stats.barriers > 0);
    assert!(
        r.stats.syncs_behind > r.stats.barriers / 4,
        "{} syncs behind {} barriers",
        r.stats.syncs_behind,
        r.stats.barriers
    );
    // ...and SCFTL erased superblocks ahead after them, each erase checked
    // by the refinement oracle (`Done::SyncBehind`).
    assert!(r.stats.erased_ahead > 0, "no superblock erased ahead");
}

/// The erase ahead's canary (`Mutant::SYNC_BEHIND`): erasing ahead when a
/// sync behind *starts*, the superblock a barrier's still unsynced epoch
/// just freed. The refinement oracle catches it at that erase (P's `GcI`:
/// a page GC freed is erased only once its commit is durable); without
/// the oracle the contract catches it later, after a power cut returned to
/// a barrier whose L2P maps into the erased superblock.
#[test]
fn an_erase_ahead_before_the_sync_is_caught() {
    for m in Mutant::SYNC_BEHIND {
        let mut run = scftl_tiny_on(m, BackendKind::Ram);
        run.target.sync_behind = true;
        run.refine = true;
        let f = random(&run, 1, 3000)
            .failure
            .unwrap_or_else(|| panic!("{}: the refinement oracle missed it", m.name()));
        assert!(
            f.violation.message.starts_with("refinement:") && f.violation.message.contains("GcI"),
            "{}: {}",
            m.name(),
            f.violation
        );
        run.refine = false;
        let f = random(&run, 1, 6000)
            .failure
            .unwrap_or_else(|| panic!("{}: the contract missed it", m.name()));
        assert!(
            f.violation.message.contains("after recovery"),
            "{}: {}",
            m.name(),
            f.violation
        );
    }
}

/// Every other sync behind holds its ticket until the next barrier (the
/// writes, reads and flushes in between run while its SYNC is
/// outstanding, as on `scftl serve`), so it proves only the epochs ended
/// before it was taken and leaves that barrier's unsynced (SCFTL's
/// `note_ticket_sync`). The model oracle takes it as PUSB's partial SYNC
/// (`unsynced::sync_oldest`, the proofs' `syB`), under power cuts before
/// and after it, and agrees, as does the refinement oracle.
#[test]
fn a_sync_behind_that_proves_only_older_epochs_passes_both_oracles() {
    let mut run = scftl_tiny_on(Mutant::None, BackendKind::Ram);
    run.target.sync_behind = true;
    run.refine = true;
    run.oracle = Some(crashcheck::model::OracleConfig::default());
    let mut partial = 0;
    for seed in [1, 2, 3] {
        let r = passes(&run, seed, 4000);
        assert!(r.stats.syncs_behind > 0, "seed {seed}: {:?}", r.stats);
        assert!(
            r.stats.oracle_unsynced_checks > 0,
            "seed {seed}: {:?}",
            r.stats
        );
        partial += r.stats.partial_syncs_behind;
    }
    assert!(partial > 10, "{partial} partial syncs behind");
}

/// A ticket that proves the epochs ended after it was taken
/// (`ticket-proves-later-epochs`, the proofs' mutant 41): its sync flags
/// the next region page as written after a sync, so recovery takes the
/// later barrier's unsynced epoch as durable without checking its data.
/// Once only the concurrent crash test reached it; with held tickets the
/// sequential checker does too, and the contract catches the mixed image.
#[test]
fn a_ticket_that_proves_later_epochs_is_caught_sequentially() {
    for m in Mutant::HELD_SYNC_BEHIND {
        let mut run = scftl_tiny_on(m, BackendKind::Ram);
        run.target.sync_behind = true;
        let caught = (1..=4).find_map(|seed| random(&run, seed, 6000).failure);
        let f = caught.unwrap_or_else(|| panic!("{}: not caught in four seeds", m.name()));
        assert!(
            f.violation.message.contains("after recovery")
                || f.violation.message.contains("recovery failed"),
            "{}: {}",
            m.name(),
            f.violation
        );
        // ...and not without held tickets: a sync behind in one piece
        // proves every epoch ended, so the mutation changes nothing
        run.target.sync_behind = false;
        for seed in 1..=4 {
            passed(
                &random(&run, seed, 6000),
                &format!("{} without syncs behind, seed {seed}", m.name()),
            );
        }
    }
}
