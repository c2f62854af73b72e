//! The refinement oracle (`crashcheck::model::refine`, `--oracle refine`,
//! issue 39): SCFTL's internal state agrees with the transcription of P
//! stepped in lock step on seeded runs, and each seeded bug of internal
//! state only (`Mutant::REFINE_ONLY`) is caught by it at an operation where
//! every other check still passes on the same steps.

use crate::common;

use std::time::Duration;

use common::*;
use crashcheck::explore::{exhaustive, explore, ExhaustiveConfig, ExploreConfig, Failure, Report};
use crashcheck::target::BackendKind;
use crashcheck::{Executor, RunConfig};
use ftl::Mutant;

fn refined(run: RunConfig) -> RunConfig {
    RunConfig {
        refine: true,
        ..run
    }
}

/// The statistics of a run `r` that passed, after the oracle really
/// compared: over a thousand operations and a hundred recoveries.
fn compared<'r>(name: &str, seed: u64, r: &'r Report) -> &'r crashcheck::Stats {
    if let Some(f) = &r.failure {
        panic!(
            "{name} seed {seed}: {}\n  shrunk: {:?}",
            f.violation, f.shrunk
        );
    }
    let s = &r.stats;
    assert!(
        s.refine_steps > 1000 && s.refine_recoveries > 100,
        "{name} seed {seed}: {s:?}"
    );
    // The checkpoint slots on the flash, after every format (the first,
    // and one per device replaced after a media failure, unless a crash
    // cut its format after the label landed and a recovery opened it) and
    // every operation and recovery (`RefineOracle::slots`).
    assert!(
        s.formats >= 1 && s.formats <= 1 + s.devices_replaced,
        "{name} seed {seed}: {s:?}"
    );
    assert_eq!(
        s.refine_slot_checks,
        s.formats + s.refine_steps + s.refine_recoveries,
        "{name} seed {seed}: {s:?}"
    );
    s
}

#[test]
fn the_refinement_oracle_agrees_with_scftl() {
    let ram = refined(run_config("scftl", None, "tiny", Mutant::None));
    let image = refined(scftl_tiny_on(Mutant::None, BackendKind::Image));
    for (name, run, seed) in [("ram", &ram, 1), ("ram", &ram, 2), ("image", &image, 3)] {
        let r = random(run, seed, 4000);
        // With flushes and epoch barriers among the operations.
        let s = compared(name, seed, &r);
        assert!(
            s.flushes > 100 && s.barriers > 10,
            "{name} seed {seed}: {s:?}"
        );
    }
}

#[test]
fn internal_state_mutants_are_caught_by_refinement_alone() {
    for m in Mutant::REFINE_ONLY {
        // No `Check` steps: `check_invariants` (which compares valid counts
        // and queues too) stays out of it.
        let run = refined(run_config("scftl", None, "tiny", m));
        let f = (1..=4)
            .find_map(|seed| random_with_rate(&run, seed, 3000, 0.0).failure)
            .unwrap_or_else(|| panic!("{}: the refinement oracle missed it on 4 seeds", m.name()));
        eprintln!(
            "{} caught at step {} of {}: {}",
            m.name(),
            f.violation.step,
            f.script.len(),
            f.violation.message
        );
        assert!(
            f.violation.message.starts_with("refinement:"),
            "{}: caught, but not by the refinement oracle: {}",
            m.name(),
            f.violation
        );
        // The same steps without the refinement oracle: the contract's
        // checks (every read, every recovery) all pass.
        let plain = RunConfig {
            refine: false,
            ..run.clone()
        };
        if let Err(v) = Executor::run(&plain, f.data_seed, &f.script) {
            panic!(
                "{}: another check caught it on the same steps: {v}",
                m.name()
            );
        }
        // And the shrunk script replays the refinement failure.
        assert_replays(&run, &f);
    }
}

/// A bug the contract does catch, but only after a crash lands on it: the
/// refinement oracle sees it at the flush itself (the commit leaves
/// relocated sectors in the cold stream's merge buffer, where P's flush
/// has programmed them).
#[test]
fn a_flush_that_skips_the_cold_buffer_is_caught_at_the_flush() {
    let mut run = refined(scftl_tiny_on(
        Mutant::FlushSkipsColdBuffer,
        BackendKind::Ram,
    ));
    run.target.hot_cold = true;
    let r = random_with_rate(&run, 1, 20_000, 0.0);
    let f = r
        .failure
        .expect("the refinement oracle missed flush-skips-cold-buffer");
    assert!(
        f.violation
            .message
            .starts_with("refinement: the FTL's merge buffer still holds"),
        "{}",
        f.violation
    );
    // The contract alone catches it later on the same seed, or not at all
    // within the steps the refinement oracle needed.
    let plain = RunConfig {
        refine: false,
        ..run.clone()
    };
    assert!(Executor::run(&plain, f.data_seed, &f.script).is_ok());
}

/// The refinement oracle's failure `f` came at an earlier step than the
/// contract's on the same seed without it (`later`), which must catch `m`.
fn caught_first(f: &Failure, later: Option<Failure>, m: &str) {
    let later = later.unwrap_or_else(|| panic!("the contract missed {m}"));
    assert!(
        f.violation.step < later.violation.step,
        "{m}: refinement at step {}, the contract at {}",
        f.violation.step,
        later.violation.step
    );
}

/// A random run with injected media failures (`--inject-failures RATE`),
/// no `Check` steps when `check_rate` is 0.
fn with_failures(run: &RunConfig, seed: u64, ops: u64, rate: f64, check_rate: f64) -> Report {
    let mut cfg = ExploreConfig::new(seed);
    cfg.ops = Some(ops);
    cfg.failure_rate = rate;
    cfg.check_rate = check_rate;
    cfg.shrink_time = Duration::from_secs(2);
    explore(run, &cfg, &mut |_, _| {})
}

/// With media failures the oracle follows what SCFTL does about them: a
/// merge buffer page whose program failed is placed again (P's writes of
/// the same content, charged to the epoch as the FTL charges them), its
/// superblock is emptied after commits and retired, failed erases retire
/// theirs, and a device that turns read-only is not followed until the
/// next recovery, which is checked as any other.
#[test]
fn the_refinement_oracle_follows_media_failures() {
    let ram = refined(run_config("scftl", None, "tiny", Mutant::None));
    let mut spared = ram.clone();
    spared.target.spare = 2;
    spared.target.hot_cold = true;
    let image = refined(scftl_tiny_on(Mutant::None, BackendKind::Image));
    for (name, run, seed) in [
        ("ram", &ram, 1),
        ("spared", &spared, 2),
        ("image", &image, 3),
    ] {
        let r = with_failures(run, seed, 6000, 0.2, 0.1);
        let s = compared(name, seed, &r);
        assert!(
            s.program_failures_injected > 3 && s.erase_failures_injected > 3,
            "{name} seed {seed}: {s:?}"
        );
        assert!(s.read_only_devices > 0, "{name} seed {seed}: {s:?}");
    }
}

/// `ignore-program-failure` (SCFTL carries on as if a failed page had
/// been programmed) is caught by the refinement oracle at the operation
/// whose program failed — its L2P maps sectors into a page the flash
/// holds garbage in — well before a read after a recovery meets the
/// damaged data, which is how the contract catches it.
#[test]
fn an_ignored_program_failure_is_caught_where_it_happens() {
    let plain = run_config("scftl", None, "small", Mutant::IgnoreProgramFailure);
    let run = refined(plain.clone());
    for f in caught_first_with_failures(
        &plain,
        "ignore-program-failure",
        &[1, 3],
        3000,
        "whose page the flash failed to program",
    ) {
        assert_replays(&run, &f);
    }
}

/// With media failures injected (rate 0.3, no `Check` steps): the
/// refinement oracle catches mutant `m` of `plain` on every seed, by a
/// message containing `what`, at an earlier step than the contract alone,
/// which must catch it too. Returns the oracle's failures.
fn caught_first_with_failures(
    plain: &RunConfig,
    m: &str,
    seeds: &[u64],
    ops: u64,
    what: &str,
) -> Vec<Failure> {
    let run = refined(plain.clone());
    seeds
        .iter()
        .map(|&seed| {
            let f = with_failures(&run, seed, ops, 0.3, 0.0)
                .failure
                .unwrap_or_else(|| panic!("the refinement oracle missed {m} (seed {seed})"));
            assert!(
                f.violation.message.contains(what),
                "{m} seed {seed}: {}",
                f.violation
            );
            let later = with_failures(plain, seed, ops, 0.3, 0.0).failure;
            caught_first(&f, later, m);
            f
        })
        .collect()
}

/// Exhaustive mode (`--exhaustive --oracle refine`): every replay of a
/// window's operations, at every crash point and nested recovery, steps P
/// too, and an internal-state bug is caught in the workload run.
#[test]
fn the_refinement_oracle_runs_in_exhaustive_mode() {
    let bounded = |seed| {
        let mut cfg = ExhaustiveConfig::new(seed, 12);
        cfg.max_outcomes = Some(8);
        cfg.depth = 1;
        cfg.long_epoch_gcs = 1;
        cfg.failure_windows = 1;
        cfg.shrink_time = Duration::from_secs(2);
        cfg
    };
    let run = refined(run_config("scftl", None, "tiny", Mutant::None));
    let r = exhaustive(&run, &bounded(2), &mut |_, _| {});
    if let Some(f) = &r.failure {
        panic!("{}\n  shrunk: {:?}", f.violation, f.shrunk);
    }
    // Far more operations compared than the workload has: the replays.
    assert!(
        r.stats.refine_steps > 10 * r.stats.operations && r.stats.refine_recoveries > 100,
        "{:?}",
        r.stats
    );
    let run = refined(run_config(
        "scftl",
        None,
        "tiny",
        Mutant::VictimErasableAtOnce,
    ));
    let f = exhaustive(&run, &bounded(2), &mut |_, _| {})
        .failure
        .expect("exhaustive mode with the refinement oracle missed victim-erasable-at-once");
    assert!(
        f.violation.message.starts_with("refinement:"),
        "{}",
        f.violation
    );
}

/// `forget-trim-delta` (a trim unmaps a sector without a delta pair): the
/// epoch's pairs no longer take the stable L2P to the volatile one, which
/// the oracle sees at the trim itself; the contract needs a crash and a
/// recovery that reads the sector.
#[test]
fn a_trim_without_its_delta_pair_is_caught_at_the_trim() {
    let plain = run_config("scftl", None, "tiny", Mutant::ForgetTrimDelta);
    let run = refined(plain.clone());
    let f = random_with_rate(&run, 1, 3000, 0.0)
        .failure
        .expect("the refinement oracle missed forget-trim-delta");
    assert!(
        f.violation.message.contains("the epoch's delta pairs"),
        "{}",
        f.violation
    );
    let later = random_with_rate(&plain, 1, 3000, 0.0).failure;
    caught_first(&f, later, "forget-trim-delta");
}

/// P's guards of the in-page and OOB commits (`InP`, `OobP`): every chain
/// commit of seeded runs passes them (from P's link, no tentative page,
/// no unsynced epoch before it, the record's pairs exactly the epoch's,
/// an OOB run's pairs its sectors in order), on RAM and on an image; and
/// the erases while a chain is on the flash, which the oracle checks
/// against PL's erase guard (`PlGuard`: no page of the chain's records
/// or the region's newest commit, no superblock of a record), happen.
#[test]
fn in_page_and_oob_commits_pass_p_guards() {
    let ram = refined(run_config("scftl", None, "tiny", Mutant::None));
    let image = refined(scftl_tiny_on(Mutant::None, BackendKind::Image));
    for (name, run, seed) in [("ram", &ram, 4), ("image", &image, 5)] {
        let r = random(run, seed, 4000);
        let s = compared(name, seed, &r);
        assert!(s.refine_chain_commits > 20, "{name} seed {seed}: {s:?}");
        assert!(s.refine_chain_phase_erases > 0, "{name} seed {seed}: {s:?}");
    }
}

/// The erase hold's way out (`Scftl::release_hold`, docs/FORMAT.md
/// §4.3): after a recovery that kept the chain's tail every erasable
/// superblock is held, so the first superblock a write needs comes after
/// the consolidation page; the oracle checks each such erase against the
/// hold (and `erase-held-superblock`, in `Mutant::REFINE_ONLY`, is caught
/// by it), and the flash's command log shows the consolidation page synced
/// before the erase.
#[test]
fn the_erase_hold_is_released_by_the_consolidation_page() {
    let run = refined(run_config("scftl", None, "tiny", Mutant::None));
    let r = random(&run, 6, 4000);
    let s = compared("ram", 6, &r);
    assert!(s.refine_hold_releases > 0, "{s:?}");
    // Each release's consolidation page was found in the flash's command
    // log and synced before the next erase (`release-hold-skips-sync`, in
    // `Mutant::REFINE_ONLY`, is caught there).
    assert!(s.refine_release_syncs > 0, "{s:?}");
}

/// Bugs of the in-page and OOB commits that break P's guards: the
/// refinement oracle sees each at the commit itself; the contract needs a
/// crash that lands on the record and a recovery that reads the sectors.
#[test]
fn chain_commits_that_break_p_guards_are_caught_at_the_commit() {
    // Trims fill the delta buffer into a tentative page, then a one-sector
    // write commits in-page (seed 12 reaches it at step 1,379; the contract
    // alone misses it in 100,000 operations). The two sync mutants commit
    // in-page or in the OOB right after an epoch barrier (step 280–590 on
    // seeds 1–3; the contract alone misses them in 20,000 operations
    // there, but for inpage-sync-past-one-epoch at seed 2, at step 8,524).
    for (m, seed, what) in [
        (
            Mutant::ChainCommitWithTentativePage,
            12,
            "tentative delta page",
        ),
        (Mutant::InpageSyncPastOneEpoch, 1, "unsynced"),
        (Mutant::InpageCommitBeforeSync, 2, "unsynced"),
    ] {
        let plain = run_config("scftl", None, "tiny", m);
        let run = refined(plain.clone());
        let f = random_with_rate(&run, seed, 10_000, 0.0)
            .failure
            .unwrap_or_else(|| panic!("{}: the refinement oracle missed it", m.name()));
        eprintln!(
            "{} caught at step {}: {}",
            m.name(),
            f.violation.step,
            f.violation.message
        );
        assert!(
            f.violation.message.starts_with("refinement:") && f.violation.message.contains(what),
            "{}: {}",
            m.name(),
            f.violation
        );
        // The same steps without the refinement oracle pass.
        if let Err(v) = Executor::run(&plain, f.data_seed, &f.script) {
            panic!(
                "{}: the contract caught it on the same steps: {v}",
                m.name()
            );
        }
    }
}

/// `erase-without-sync-after-barrier` (an erase while epochs ended by
/// barriers are unsynced, without the sync before it): the oracle sees it
/// at the erase of a superblock GC freed at a commit that is not durable
/// yet (P's `GcI`), where the contract needs a power cut right after that
/// erase and a read of the lost sector. Bad superblocks shorten the
/// erasable queue until such an erase happens (`Mutant::RANDOM_ONLY`).
/// The contract's catch is seed luck: of seeds 1–40 at 10,000 operations,
/// 15, 28 and 30 reach it (2 and 3 did before the erase hold, whose
/// consolidation page after a reopen moves every later step); the oracle
/// catches 9 of seeds 1–16.
#[test]
fn an_erase_before_its_freeing_commit_is_durable_is_caught_at_the_erase() {
    let mut plain = run_config("scftl", None, "tiny", Mutant::EraseWithoutSyncAfterBarrier);
    plain.target.spare = 2;
    caught_first_with_failures(
        &plain,
        "erase-without-sync-after-barrier",
        &[15, 30],
        10_000,
        "GcI",
    );
}

/// OOB commits over 32 pages (configuration version 9, docs/FORMAT.md
/// §4.9): a workload of long epochs of writes only (no trims, which end an
/// OOB run; flushes rare; two streams, so GC relocations do not break the
/// host stream's run) on `small`, where a superblock holds 128 pages and
/// W = 256 sectors (64 pages), under power cuts, the contract and the
/// refinement oracle (P's guard `OobP` on every commit). The default
/// workload's runs stay under 32 pages (20 to 29 measured on `small`).
#[test]
fn oob_commits_over_32_pages_pass_p_guards_under_power_cuts() {
    let mut run = refined(run_config("scftl", None, "small", Mutant::None));
    run.target.hot_cold = true;
    let mut cfg = ExploreConfig::new(5);
    cfg.ops = Some(3000);
    cfg.shrink_time = Duration::from_secs(2);
    cfg.long_epoch_prob = 0.6;
    cfg.forced_barrier_prob = 0.0;
    cfg.workload = crashcheck::explore::Workload {
        write: 90,
        trim: 0,
        flush: 1,
        barrier: 0,
        read: 2,
        max_sectors: 16,
        ..Default::default()
    };
    let r = explore(&run, &cfg, &mut |_, _| {});
    if let Some(f) = &r.failure {
        panic!("{}\n  shrunk: {:?}", f.violation, f.shrunk);
    }
    let s = &r.stats;
    eprintln!(
        "{} in-page/OOB commits checked, the longest OOB run {} pages, {} crashes",
        s.refine_chain_commits, s.refine_longest_oob_run, s.crashes
    );
    assert!(s.crashes > 20, "{s:?}");
    assert!(
        s.refine_longest_oob_run > 32,
        "no OOB run over 32 pages was checked: {s:?}"
    );
}

/// A flush whose GC victim the same flush erases and takes again after its
/// commit (static wear leveling's moves after the commit fill the cold
/// stream, whose next superblock is that victim, erasable at once because
/// a flush's commit is durable): the victim's pages are P's `rlX` and
/// then `esF`, although the superblock is active again, not erasable, when
/// the operation ends. The oracle took only erasable superblocks as a
/// committing operation's victims and reported "GC never took it" at the
/// erase on this seed (found by a bug hunt; `scftl crashtest --geometry
/// tiny --seed 9011 --ops 110272 --wear-leveling --hot-cold --oracle
/// refine --aimed 0.02`, the run this test is).
#[test]
fn a_victim_erased_and_taken_again_in_its_own_flush_is_followed() {
    let mut run = refined(scftl_tiny_on(Mutant::None, BackendKind::Ram));
    run.target.hot_cold = true;
    run.target.wear = Some(crashcheck::target::checker_wear_policy(ftl::FtlKind::Scftl));
    let r = random_with(&run, 9011, 110_272, |cfg| cfg.aimed_rate = 0.02);
    let s = compared("hot-cold, wear leveling, aimed", 9011, &r);
    assert!(s.refine_victims_reused > 0, "{s:?}");
}

/// A move that a later change of the same sector in the same operation
/// overrides — a sector moved out of a superblock being emptied after a
/// failed program, then written by the request — is placed in P from the
/// view's move log (`RefineView::moves`), though the L2P at the
/// operation's end does not show it: the epoch's OOB commit starts at the
/// move's page, which P's guard `OobP` must find placed. The oracle
/// abstracted an operation by its final L2P alone and reported "an OOB
/// commit from link L, where the epoch placed no sector" on the first run
/// (found by a bug hunt: `scftl crashtest --geometry tiny --seed 9016
/// --ops 145640 --spare-superblocks 3 --oracle refine --inject-failures
/// 0.05`). In the second a sector the request wrote first is moved and
/// then placed again (`--seed 7003 --ops 120400 --spare-superblocks 2
/// --inject-failures 0.1 --wear-leveling --hot-cold`): P, which did not
/// map it, writes it at the move's page.
#[test]
fn a_move_the_same_request_overrides_is_placed_in_p() {
    let mut spared = refined(scftl_tiny_on(Mutant::None, BackendKind::Ram));
    spared.target.spare = 3;
    let mut both = spared.clone();
    both.target.spare = 2;
    both.target.hot_cold = true;
    both.target.wear = Some(crashcheck::target::checker_wear_policy(ftl::FtlKind::Scftl));
    for (name, run, seed, ops, rate) in [
        ("spared", &spared, 9016, 145_640, 0.05),
        ("hot-cold, wear leveling", &both, 7003, 120_400, 0.1),
    ] {
        let r = with_failures(run, seed, ops, rate, 0.1);
        let s = compared(name, seed, &r);
        assert!(s.program_failures_injected > 0, "{name}: {s:?}");
    }
}

/// A request writes a sector, GC then moves that fresh copy (the victim is
/// the superblock the write just filled), the program of the page it moved
/// into fails, and the sector is placed again: the move's source is the
/// request's own page, not the page P maps the sector to, so P writes the
/// request's version at the move's page and the old page is overwritten.
/// The oracle used to relocate the old page instead, leaving it invalid in
/// a superblock still in use, and reported "superblock 6 is Used, but P's
/// page at physical sector 196 (logical sector 36) is invalid or
/// erasable" (a bug hunt: `scftl crashtest --geometry tiny --seed
/// 409828538 --ops 1078288 --spare-superblocks 2 --oracle refine
/// --split-tears --silent-bad-blocks --inject-failures 0.3 --aimed 0.05`;
/// this is its shrunk script, which needs neither media fault model).
#[test]
fn a_write_moved_by_gc_then_placed_again_is_written_in_p() {
    use crashcheck::Step;
    let mut run = refined(scftl_tiny_on(Mutant::None, BackendKind::Ram));
    run.target.spare = 2;
    let recover = Step::Recover {
        sample_seed: 0,
        invariants: true,
        full: true,
    };
    let w = |lba, count| Step::Write { lba, count };
    let fail = |after| Step::FailProgram { after };
    let script = vec![
        Step::Format,
        fail(1),
        w(3, 1),
        w(0, 1),
        w(0, 1),
        recover.clone(),
        w(0, 8),
        w(8, 8),
        Step::Flush,
        w(16, 8),
        w(24, 8),
        Step::Flush,
        w(32, 8),
        w(40, 8),
        Step::Flush,
        w(7, 1),
        w(29, 4),
        Step::Barrier,
        recover.clone(),
        w(37, 1),
        w(24, 6),
        Step::Barrier,
        w(40, 1),
        w(0, 7),
        Step::Flush,
        recover,
        fail(29),
        w(0, 6),
        Step::Barrier,
        w(2, 1),
        w(3, 1),
        w(0, 1),
        Step::Flush,
        w(0, 1),
        Step::Barrier,
        w(1, 1),
        w(2, 2),
        // Written at the end of superblock 8, moved by GC into 9 with the
        // rest of 8, whose page then fails to program: placed again in 10.
        w(36, 6),
    ];
    let mut ex = Executor::new(run, 0).unwrap();
    for (i, st) in script.iter().enumerate() {
        if let Err(v) = ex.step(st) {
            panic!("step {i} ({st}): {v}");
        }
    }
    let s = ex.stats();
    assert_eq!(s.program_failures_injected, 2, "{s:?}");
    // The oracle compared every operation and recovery.
    assert_eq!(
        (s.refine_steps, s.refine_recoveries),
        (s.operations, 3),
        "{s:?}"
    );
}
