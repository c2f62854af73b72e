//! The model oracle (`crashcheck::model`, `--oracle model`): the unmutated
//! transcription of P agrees with SCFTL on seeded runs, and every seeded
//! bug in the transcription (`ModelMutant`) makes the differential check
//! fail — so the comparison is not vacuous.

use crate::common;

use common::*;
use crashcheck::model::{ModelMutant, OracleConfig};
use crashcheck::RunConfig;
use ftl::Mutant;

/// A random run without epoch barriers (`--no-barriers`): the workload the
/// transcription's mutants of P's flush and recovery, and PL's lazy chain
/// (which needs every earlier epoch durable), are caught on.
fn no_barriers(
    run: &RunConfig,
    seed: u64,
    ops: u64,
    check_rate: f64,
) -> crashcheck::explore::Report {
    random_with(run, seed, ops, |cfg| {
        cfg.check_rate = check_rate;
        cfg.workload.barrier = 0;
        cfg.forced_barrier_prob = 0.0;
    })
}

fn scftl_oracle(m: ModelMutant) -> RunConfig {
    let mut run = run_config("scftl", None, "tiny", Mutant::None);
    run.oracle = Some(OracleConfig {
        mutant: m,
        ..OracleConfig::default()
    });
    run
}

#[test]
fn unmutated_oracle_agrees_with_scftl() {
    let run = scftl_oracle(ModelMutant::None);
    for seed in [1, 2] {
        let r = random(&run, seed, 4000);
        passed(&r, &format!("seed {seed}"));
        let s = &r.stats;
        // The oracle really ran: it matched recoveries (also recoveries
        // from crashes inside recoveries) and compared states.
        assert!(s.oracle_recoveries > 300, "{s:?}");
        assert!(s.oracle_state_checks > 100, "{s:?}");
        assert!(s.crashes_during_recovery > 50, "{s:?}");
        // ... with epoch barriers (PU's flB, recovery over several
        // unsynced epochs), and without them
        assert!(s.barriers > 100, "{s:?}");
        // ... checked with epochs unsynced (PU's invariants, AR.stb at
        // both ends)
        assert!(s.oracle_unsynced_checks > 30, "{s:?}");
        let r = no_barriers(&run, seed, 4000, 0.1);
        passed(&r, &format!("seed {seed} without barriers"));
        assert_eq!(r.stats.barriers, 0);
        assert!(r.stats.oracle_record_commits > 5, "{:?}", r.stats);
        // ... and, with the lazy chain, recoveries without the full
        // checkpoint where `clean` and `Quiet` allow one (PXq), which the
        // model then steps on from
        assert!(r.stats.oracle_clean_recoveries > 10, "{:?}", r.stats);
    }
}

/// A model whose barrier SYNCs (PU with `umax` 0: every barrier is P's
/// flush) allows too few crash states: SCFTL's barriers leave epochs
/// unsynced, and a crash may return to any of them, which that model
/// calls a loss — so the comparison really depends on PU's `flB`.
#[test]
fn a_model_whose_barriers_sync_is_caught() {
    let mut run = scftl_oracle(ModelMutant::None);
    run.oracle.as_mut().unwrap().umax = 0;
    let (_, f) = caught(&run, &[1, 2, 3, 4], 3000);
    assert!(
        f.violation.message.contains("model oracle"),
        "{}",
        f.violation
    );
}

/// Aimed cycles (`--aimed`: a power cut right after an erase, on a full
/// device whose epochs end by barriers alone or after a clean reopen) run
/// under the model oracle, whose PU takes the barriers they end epochs
/// with, and the unmutated transcription agrees with SCFTL on them.
#[test]
fn the_model_oracle_runs_aimed_cycles() {
    let run = scftl_oracle(ModelMutant::None);
    for seed in [1, 2] {
        let r = random_with(&run, seed, 3000, |cfg| cfg.aimed_rate = 0.2);
        passed(&r, &format!("seed {seed}"));
        let s = &r.stats;
        assert!(s.aimed_cycles > 10, "{s:?}");
        assert!(s.oracle_recoveries > 100, "{s:?}");
        assert!(s.barriers > 100, "{s:?}");
    }
}

/// Over the image backend (its own host power-cut model: file writes since
/// the last `fdatasync` lost or torn) the model's candidates hold SCFTL's
/// recoveries too; there is no stable probe (the image cannot be copied),
/// so `AR.stb` is not checked, RI, PU's invariants and `AR.vol` are.
#[test]
fn the_model_oracle_runs_on_the_image_backend() {
    let mut run = scftl_oracle(ModelMutant::None);
    run.target.backend = crashcheck::target::BackendKind::Image;
    let r = random(&run, 1, 3000);
    passed(&r, "seed 1 on the image backend");
    let s = &r.stats;
    assert!(
        s.oracle_recoveries > 200 && s.oracle_unsynced_checks > 10,
        "{s:?}"
    );
}

/// Exhaustive mode (`--exhaustive --oracle model`, no failure run): at
/// every crash point of a window's operations and every outcome there,
/// the state SCFTL recovers must be one of the model's candidates — PU's
/// crash states after the barrier run's barriers included — and a seeded
/// bug in the transcription is caught there too.
#[test]
fn the_model_oracle_runs_in_exhaustive_mode() {
    use crashcheck::explore::{exhaustive, ExhaustiveConfig};
    let bounded = |seed| {
        let mut cfg = ExhaustiveConfig::new(seed, 4);
        cfg.max_outcomes = Some(8);
        cfg.depth = 1;
        cfg.long_epoch_gcs = 1;
        cfg.shrink_time = std::time::Duration::from_secs(2);
        cfg
    };
    let run = scftl_oracle(ModelMutant::None);
    for seed in [2, 3] {
        let r = exhaustive(&run, &bounded(seed), &mut |_, _| {});
        passed(&r, &format!("seed {seed}"));
        let x = r.exhaustive.as_ref().expect("exhaustive stats");
        assert!(x.bounds.contains("no failure run"), "{}", x.bounds);
        // the crash outcomes' recoveries matched, and states checked with
        // barriers' epochs unsynced
        let s = &r.stats;
        assert!(
            s.oracle_recoveries > 300 && s.oracle_unsynced_checks > 0,
            "seed {seed}: {s:?}"
        );
    }
    let run = scftl_oracle(ModelMutant::RecoveryKeepsVolatile);
    let f = exhaustive(&run, &bounded(3), &mut |_, _| {})
        .failure
        .expect("exhaustive mode catches model-recovery-keeps-volatile");
    assert!(
        f.violation.message.contains("model oracle"),
        "{}",
        f.violation
    );
}

/// A mutant of PU's barrier that corrupts only the model's state is
/// caught at `Check` steps — by one of the checks `by` names (PU's
/// invariants, `AR.stb` with an epoch unsynced), whichever fails first
/// (the message names it,
/// the shrunk script replays) — and without `Check` steps nothing
/// catches it: the comparison with SCFTL's recoveries does not.
fn caught_only_at_check_steps(m: ModelMutant, by: &[&str]) {
    let run = scftl_oracle(m);
    let (seed, f) = caught(&run, &[1, 2, 3, 4], 3000);
    let msg = &f.violation.message;
    assert!(
        by.iter().any(|b| msg.contains(b)),
        "{m:?}, seed {seed}, not caught by {by:?}: {}",
        f.violation
    );
    assert_replays(&run, &f);
    for seed in [1, 2] {
        let r = random_with(&run, seed, 3000, |cfg| cfg.check_rate = 0.0);
        passed(&r, &format!("{m:?} without Check steps, seed {seed}"));
        assert!(r.stats.barriers > 100, "{:?}", r.stats);
    }
}

/// PU's barrier that releases the epoch's GC victims (the proofs' mutant
/// 25) lets the model's GC erase a page its stable L2P still maps. P's
/// erase is not durable before a SYNC, so the model's crash outcomes
/// still include the page intact, and SCFTL's recoveries stay among them.
/// PU's `SmI` sees the page erasable; `AR.stb` with nothing in flight
/// applied reads it erased through the stable L2P; `SyI` sees the stable
/// L2P map a page that is not a synced data page (the erase landed).
#[test]
fn a_barrier_that_releases_victims_is_caught_only_at_check_steps() {
    caught_only_at_check_steps(
        ModelMutant::BarrierReleasesVictims,
        &[
            "model oracle: SmI",
            "model oracle (AR.stb)",
            "model oracle: SyI",
        ],
    );
}

/// PU's barrier that takes the epoch's map as the stable L2P: no crash
/// outcome or read depends on `smap` while an epoch is unsynced, and P's
/// RI then is checked of the state virtually synced. PU's `BI` (the
/// durable part replays to `smap`) sees it, and so does `AR.stb` with
/// nothing in flight applied (the barrier's image, not the last SYNC's).
#[test]
fn a_barrier_that_advances_the_stable_map_is_caught_only_at_check_steps() {
    caught_only_at_check_steps(
        ModelMutant::BarrierAdvancesStable,
        &["model oracle: BI.rx", "model oracle (AR.stb)"],
    );
}

/// PU's barrier that releases the GC victims the stable L2P does not map:
/// `SmI` holds, the stable probe reads the last SYNC's or the last
/// barrier's image (neither maps such a page), and SCFTL's recoveries stay
/// among the model's outcomes (P's erase is not durable before a SYNC);
/// only PU's ghost invariant sees an earlier barrier's snapshot read
/// through an erasable page (`GhU.GhD`).
#[test]
fn a_barrier_that_releases_older_victims_is_caught_only_by_the_ghost_invariant() {
    caught_only_at_check_steps(
        ModelMutant::BarrierReleasesOlderVictims,
        &["model oracle: GhU.GhD"],
    );
}

/// The SYNC outside a commit that releases every invalid page (the
/// proofs' mutant 40), a page the stable L2P still maps included: the
/// model's GC erases it before the commit that stops mapping it. P's
/// erase is not durable before a SYNC, so SCFTL's recoveries stay among
/// the model's outcomes; PU's `SmI` sees the page erasable, `AR.stb`
/// reads it erased.
#[test]
fn a_sync_that_releases_mapped_victims_is_caught_only_at_check_steps() {
    caught_only_at_check_steps(
        ModelMutant::SyncReleasesMappedVictims,
        &["model oracle: SmI", "model oracle (AR.stb)"],
    );
}

/// The sync behind whose ticket proves only the oldest epochs, proving
/// one more in the model (the proofs' mutant 41): with held tickets
/// (`--sync-behind`) the model lands the epoch a later barrier ended, and
/// a power cut that loses it recovers an image the model no longer allows.
#[test]
fn a_sync_behind_that_proves_a_later_epoch_is_caught_after_recovery() {
    let mut run = scftl_oracle(ModelMutant::SyncBehindProvesLaterEpoch);
    run.target.sync_behind = true;
    let f = (1..=4)
        .find_map(|seed| random(&run, seed, 4000).failure)
        .expect("model-sync-behind-proves-later-epoch: the oracle missed it in seeds 1-4");
    assert!(
        f.violation.message.contains("model oracle"),
        "caught, but not by the model oracle: {}",
        f.violation
    );
    assert_replays(&run, &f);
    // ...and without held tickets the step never runs
    run.target.sync_behind = false;
    passed(&random(&run, 1, 4000), "without syncs behind");
}

/// Runs a mutant until caught (seeds 1..=4); checks the message names the
/// check that caught it and that the shrunk script reproduces it.
fn caught_by(run: &RunConfig, check_rate: f64, expect: &str) {
    for seed in 1..=4 {
        let r = no_barriers(run, seed, 3000, check_rate);
        if let Some(f) = r.failure {
            eprintln!(
                "{:?} caught with seed {seed}: {}\n  shrunk to {} steps: {}",
                run.oracle.as_ref().map(|o| o.mutant),
                f.violation,
                f.shrunk.len(),
                f.shrunk_violation
            );
            assert!(
                f.violation.message.contains(expect),
                "caught, but not by `{expect}`: {}",
                f.violation
            );
            assert_replays(run, &f);
            return;
        }
    }
    panic!(
        "model mutant {:?} passed 4 seeds: the oracle missed it",
        run.oracle.as_ref().map(|o| o.mutant)
    );
}

// Without `Check` steps and without RI right after recovery only the
// differential comparison after recovery runs (the model's own RI is not
// checked), so these show that it alone catches a wrong flush and a wrong
// recovery.

/// The model oracle with `m`, P's RI checked only at `Check` steps.
fn no_ri_after_recovery(m: ModelMutant) -> RunConfig {
    let mut run = scftl_oracle(m);
    if let Some(o) = run.oracle.as_mut() {
        o.ri_after_recovery = false;
    }
    run
}

#[test]
fn flush_forgets_deltas_caught_after_recovery() {
    caught_by(
        &no_ri_after_recovery(ModelMutant::FlushForgetsDeltas),
        0.0,
        "after recovery: model oracle: sector",
    );
}

#[test]
fn recovery_keeps_volatile_caught_after_recovery() {
    caught_by(
        &no_ri_after_recovery(ModelMutant::RecoveryKeepsVolatile),
        0.0,
        "after recovery: model oracle: sector",
    );
}

// P's RI right after every recovery (`ch-done` of
// proofs/SCFTL/Impl/UnsyncedBridgeCmVAll.agda, P's `B-rec`): a wrong
// recovery is caught there, before any read or `Check` step.

#[test]
fn recovery_keeps_volatile_breaks_ri_right_after_recovery() {
    caught_by(
        &scftl_oracle(ModelMutant::RecoveryKeepsVolatile),
        0.0,
        "model oracle, right after recovery: RI.",
    );
}

// With `Check` steps, the model's RI catches them too.

#[test]
fn flush_forgets_deltas_breaks_ri() {
    caught_by(
        &scftl_oracle(ModelMutant::FlushForgetsDeltas),
        1.0,
        "model oracle: RI.",
    );
}

#[test]
fn write_skips_counter_caught_by_ar_cnt() {
    caught_by(
        &scftl_oracle(ModelMutant::WriteSkipsCounter),
        0.0,
        "model oracle (AR.cnt)",
    );
}

/// PL's erase guard off (the proofs' mutant 31): the model erases a page a
/// record of its lazy chain names, its walk then stops at that record,
/// and P's RI on the virtually consolidated state fails (seed 65 reaches
/// such an erase — seed 17 did before SCFTL's erase hold added a SYNC
/// after some reopens, which the model takes as its own, and 52 before
/// the model recovered from the chain phase without a checkpoint where
/// PXq allows it, which moves the model's later steps; 52, 65, 118 and
/// 144 of 1–160 then; the policy's GC takes a page the chain names every
/// second step, so the chain's pages are victims at all). The real model never
/// erases such a page (`lazy_chain_example_runs`).
#[test]
fn chain_erase_unguarded_breaks_ri() {
    let run = scftl_oracle(ModelMutant::ChainEraseUnguarded);
    let catches = |seed| {
        no_barriers(&run, seed, 3000, 0.1)
            .failure
            .is_some_and(|f| f.violation.message.contains("model oracle: RI."))
    };
    let r = no_barriers(&run, 65, 3000, 0.1);
    let f = r.failure.unwrap_or_else(|| {
        panic!(
            "the unguarded erase is not caught{}",
            seed_search(65, catches)
        )
    });
    assert!(
        f.violation.message.contains("model oracle: RI."),
        "{}",
        f.violation
    );
    assert_replays(&run, &f);
    let r = no_barriers(&scftl_oracle(ModelMutant::None), 65, 3000, 0.1);
    assert!(r.failure.is_none(), "{:?}", r.failure.map(|f| f.violation));
    // P's recovery reclaims (`rec0`'s `reclaim`), and the oracle's GC
    // erases those pages too, after the ones commits made erasable.
    assert!(
        r.stats.oracle_reclaimed_erases > 0,
        "no page a recovery reclaimed was erased ({} recoveries)",
        r.stats.oracle_recoveries
    );
}

/// An FTL bug the contract's model catches is caught by the model oracle
/// too when it changes what recovery reads (here both run; the first
/// violation wins, so this only shows the oracle does not mask it).
#[test]
fn real_ftl_mutant_still_caught_with_the_oracle() {
    let mut run = scftl_oracle(ModelMutant::None);
    run.mutant = Mutant::SkipSyncBeforeCommit;
    let (_, f) = caught(&run, &[1, 2, 3, 4], 3000);
    eprintln!("caught: {}", f.violation);
}

/// With wear leveling, SCFTL charges its static moves to the epoch budget,
/// so `AR.cnt` holds only as `wcnt ≤ W - epoch_remaining()`: the exact
/// equation fails (seed 11 reaches a static move), the inequality passes.
#[test]
fn wear_leveling_charges_the_budget_so_ar_cnt_is_an_inequality() {
    let mut run = scftl_oracle(ModelMutant::None);
    run.target.wear = Some(ftl::wear::default_for(ftl::FtlKind::Scftl));
    let r = random(&run, 11, 3000);
    let f = r
        .failure
        .expect("the exact AR.cnt fails under wear leveling");
    assert!(f.violation.message.contains("AR.cnt"), "{}", f.violation);
    run.oracle.as_mut().unwrap().counter_exact = false;
    let r = random(&run, 11, 3000);
    assert!(r.failure.is_none(), "{:?}", r.failure.map(|f| f.violation));
    assert!(r.stats.oracle_recoveries > 100);
}
