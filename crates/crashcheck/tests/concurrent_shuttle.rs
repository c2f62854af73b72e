//! The concurrent crash test under shuttle's randomized scheduler (the
//! `shuttle` feature: `cargo test -p crashcheck --features shuttle --test
//! concurrent_shuttle`, which .ci/run runs). Shuttle runs the threads one
//! at a time and picks every switch from its seed, so a failing round
//! comes with a schedule that replays it exactly: the same scripts, the
//! same interleaving, the same history, the same verdict — which the
//! operating system's scheduler (`scftl crashtest --concurrent`) cannot
//! promise. The protocol must pass; each seeded bug of the write pipeline
//! and the lock protocol must be caught, and its schedule must replay to
//! the same failure.
#![cfg(feature = "shuttle")]

use std::panic::{catch_unwind, AssertUnwindSafe};

use crashcheck::concurrent::{shuttle_round, ConcurrentConfig};
use ftl::SharedMutant;
use shuttle::scheduler::{RandomScheduler, ReplayScheduler};
use shuttle::{Config, Runner};

fn config() -> Config {
    let mut c = Config::new();
    // Formatting and recovering SCFTL runs inside shuttle's tasks.
    c.stack_size = 8 << 20;
    c
}

/// Runs `rounds` rounds from scheduler seed `seed`; the panic message of
/// the first failing one (shuttle's report with the schedule, then ours).
fn run(c: &ConcurrentConfig, seed: u64, rounds: usize) -> Option<String> {
    let f = shuttle_round(c.clone());
    let r = catch_unwind(AssertUnwindSafe(|| {
        Runner::new(RandomScheduler::new_from_seed(seed, rounds), config()).run(f)
    }));
    r.err().map(|p| match p.downcast::<String>() {
        Ok(s) => *s,
        Err(_) => "a panic without a message".into(),
    })
}

fn replay(c: &ConcurrentConfig, schedule: &str) -> Option<String> {
    let f = shuttle_round(c.clone());
    let r = catch_unwind(AssertUnwindSafe(|| {
        Runner::new(ReplayScheduler::new_from_encoded(schedule), config()).run(f)
    }));
    r.err().map(|p| match p.downcast::<String>() {
        Ok(s) => *s,
        Err(_) => "a panic without a message".into(),
    })
}

/// The schedule and our message out of shuttle's report.
fn split(report: &str) -> (String, String) {
    let schedule = report
        .split("failing schedule:\n\"\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\"").next())
        .unwrap_or_else(|| panic!("no schedule in the report:\n{report}"))
        .to_string();
    let ours = report
        .split("original panic: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no message of ours in the report:\n{report}"))
        .to_string();
    (schedule, ours)
}

fn base() -> ConcurrentConfig {
    ConcurrentConfig::default()
}

#[test]
fn the_write_pipeline_passes_under_shuttle() {
    for seed in [1, 2] {
        if let Some(report) = run(&base(), seed, 2000) {
            panic!("seed {seed}:\n{report}");
        }
    }
}

/// Each bug is caught within 5 x 3,000 shuttle rounds (about a second), and its
/// schedule, replayed, fails again with the very same history.
#[test]
fn each_pipeline_bug_is_caught_and_its_schedule_replays() {
    let bugs = [
        ConcurrentConfig {
            mutant: SharedMutant::FlushReturnsDuringSync,
            ..base()
        },
        ConcurrentConfig {
            mutant: SharedMutant::JoinsEarlierSync,
            ..base()
        },
        ConcurrentConfig {
            mutant: SharedMutant::SyncBehindPromisesChanges,
            ..base()
        },
        ConcurrentConfig {
            mutant: SharedMutant::HeldReturnNotCounted,
            ..base()
        },
        ConcurrentConfig {
            ftl_mutant: ftl::Mutant::TicketProvesLaterEpochs,
            ..base()
        },
        ConcurrentConfig {
            ftl_mutant: ftl::Mutant::DetachedFlushCommitsInline,
            ..base()
        },
    ];
    for c in bugs {
        let report = (1..=5)
            .find_map(|seed| run(&c, seed, 3000))
            .unwrap_or_else(|| {
                panic!(
                    "{:?}/{:?} not caught in 5 x 3000 shuttle rounds",
                    c.mutant, c.ftl_mutant
                )
            });
        let (schedule, ours) = split(&report);
        assert!(
            ours.contains("concurrent crash test failed"),
            "{:?}/{:?}: {ours}",
            c.mutant,
            c.ftl_mutant
        );
        let again = replay(&c, &schedule).unwrap_or_else(|| {
            panic!(
                "{:?}/{:?}: the schedule passed when replayed:\n{report}",
                c.mutant, c.ftl_mutant
            )
        });
        let (_, ours_again) = split(&again);
        assert_eq!(ours, ours_again, "the replay failed differently");
    }
}

/// With a background writer GC and the erase ahead run among the threads'
/// operations: the protocol passes, and the erase ahead made when a sync
/// starts (before it proves the epoch that freed the superblock) is
/// caught, its schedule replaying to the same failure.
#[test]
fn with_a_background_writer_the_erase_ahead_bug_is_caught_and_replays() {
    let bg = ConcurrentConfig {
        background_writes: 200,
        ..base()
    };
    if let Some(report) = run(&bg, 1, 300) {
        panic!("{report}");
    }
    let c = ConcurrentConfig {
        ftl_mutant: ftl::Mutant::EraseAheadBeforeSync,
        ..bg
    };
    let report = (1..=10)
        .find_map(|seed| run(&c, seed, 1000))
        .expect("erase-ahead-before-sync not caught in 10 x 1000 shuttle rounds");
    let (schedule, ours) = split(&report);
    assert!(ours.contains("concurrent crash test failed"), "{ours}");
    let again = replay(&c, &schedule).expect("the schedule passed when replayed");
    assert_eq!(ours, split(&again).1, "the replay failed differently");
}
