//! The concurrent crash test (`crashcheck::concurrent`): it passes on the
//! NBD server's lock protocol, catches each seeded bug of that protocol,
//! and its linearizability search rejects hand-made histories that no
//! order explains.

use crashcheck::concurrent::{self, check_history, ConcurrentConfig, Op, OpKind};
use ftl::SharedMutant;

fn op(thread: usize, invoke: u64, ret: Option<u64>, kind: OpKind) -> Op {
    Op {
        thread,
        invoke,
        ret,
        kind,
    }
}

fn write(lba: u64, n: u64, id: u64) -> OpKind {
    OpKind::Write {
        lba,
        n,
        id,
        barrier: false,
    }
}

#[test]
fn the_lock_protocol_passes_and_reads_run_shared() {
    let c = ConcurrentConfig {
        rounds: 150,
        ..ConcurrentConfig::default()
    };
    let stats = concurrent::run(&c).unwrap_or_else(|f| panic!("{f}"));
    eprintln!("{stats:?}");
    assert_eq!(stats.rounds, 150);
    assert!(stats.cut_mid_run > 50, "{stats:?}");
    assert!(
        stats.shared_reads > 0,
        "no read took the shared path: {stats:?}"
    );
}

/// Reruns `mutant` with fresh seeds until a round fails (the interleaving
/// is the scheduler's, so one seed may miss).
fn caught(mutant: SharedMutant) -> String {
    caught_with(ConcurrentConfig {
        mutant,
        ..ConcurrentConfig::default()
    })
}

fn caught_with(base: ConcurrentConfig) -> String {
    for seed in 1..=40 {
        let c = ConcurrentConfig {
            seed,
            rounds: 150,
            ..base.clone()
        };
        if let Err(f) = concurrent::run(&c) {
            eprintln!(
                "{:?}/{:?} caught with seed {seed}:\n{f}",
                c.mutant, c.ftl_mutant
            );
            return f.to_string();
        }
    }
    panic!(
        "{:?}/{:?} was not caught in 40 seeds of 150 rounds",
        base.mutant, base.ftl_mutant
    );
}

#[test]
fn an_ftl_whose_flush_does_not_sync_is_caught_too() {
    let why = caught_with(ConcurrentConfig {
        ftl_mutant: ftl::Mutant::SkipSyncBeforeCommit,
        ..ConcurrentConfig::default()
    });
    assert!(why.contains("no order"), "{why}");
}

#[test]
fn a_flush_that_returns_during_another_flushs_sync_is_caught() {
    let why = caught(SharedMutant::FlushReturnsDuringSync);
    assert!(why.contains("no order"), "{why}");
}

#[test]
fn a_flush_that_unlocks_during_its_sync_is_caught() {
    let why = caught(SharedMutant::UnlockDuringSync);
    // The device refuses a change, or another flush, while one is begun.
    assert!(why.contains("begun") || why.contains("no order"), "{why}");
}

#[test]
fn a_read_of_a_value_overwritten_before_it_began_is_rejected() {
    // t0 writes 1 then 2 to sector 0; t1 reads 1 after the second write
    // returned.
    let h = vec![
        op(0, 0, Some(1), write(0, 1, 1)),
        op(0, 2, Some(3), write(0, 1, 2)),
        op(
            1,
            4,
            Some(5),
            OpKind::Read {
                lba: 0,
                seen: vec![1],
            },
        ),
    ];
    assert!(check_history(&h, &[0], 1).is_err());
    // Concurrent with the second write, the read may see the first.
    let h2 = vec![
        op(0, 0, Some(1), write(0, 1, 1)),
        op(0, 2, Some(5), write(0, 1, 2)),
        op(
            1,
            3,
            Some(4),
            OpKind::Read {
                lba: 0,
                seen: vec![1],
            },
        ),
    ];
    assert!(check_history(&h2, &[0], 1).is_ok());
}

#[test]
fn a_recovered_device_without_a_flushed_write_is_rejected() {
    let h = vec![
        op(0, 0, Some(1), write(0, 2, 7)),
        op(1, 2, Some(3), OpKind::Flush { flushed: true }),
        op(0, 4, None, write(1, 1, 9)),
    ];
    // The flushed write must be there; the interrupted one may or may not.
    assert!(check_history(&h, &[0, 0], 2).is_err());
    assert!(
        check_history(&h, &[7, 0], 2).is_err(),
        "sector 1 was flushed as 7"
    );
    assert!(check_history(&h, &[7, 7], 2).is_ok());
    // The interrupted write has no commit point after it.
    assert!(check_history(&h, &[7, 9], 2).is_err());
    // A flush that only found its changes covered is no commit point, but
    // it promises what returned before it: with the committing flush
    // concurrent, the recovered device must hold the write.
    let h3 = vec![
        op(0, 0, Some(1), write(0, 1, 7)),
        op(1, 2, Some(6), OpKind::Flush { flushed: true }),
        op(2, 3, Some(4), OpKind::Flush { flushed: false }),
        op(0, 7, None, write(0, 1, 8)),
    ];
    assert!(check_history(&h3, &[7], 1).is_ok());
    assert!(check_history(&h3, &[0], 1).is_err());
    assert!(check_history(&h3, &[8], 1).is_err());
    let h4 = vec![
        op(0, 0, Some(1), write(0, 1, 7)),
        op(1, 2, Some(3), OpKind::Flush { flushed: false }),
    ];
    assert!(check_history(&h4, &[7], 1).is_err(), "no commit holds 7");
}
