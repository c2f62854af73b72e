//! SCFTL: configuration checks, error paths, and the simple crash (drop
//! without flush, every command applied) returning the last flush.

use flash::{Flash, Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{label, BlockDevice, FtlError, FtlKind, Lba};

fn tiny() -> (Geometry, ScftlConfig) {
    let g = Geometry::tiny();
    (g, ScftlConfig::default_for(&g))
}

fn fresh() -> Scftl<MemFlash> {
    let (g, c) = tiny();
    Scftl::format(MemFlash::new(g).unwrap(), c).unwrap()
}

fn bad_config_message(g: &Geometry, c: &ScftlConfig) -> String {
    match c.validate(g) {
        Err(FtlError::BadConfig(m)) => m,
        other => panic!("expected BadConfig, got {other:?}"),
    }
}

#[test]
fn constraint_1_is_checked_with_numbers() {
    let (g, mut c) = tiny();
    c.write_bound = 10_000;
    let m = bad_config_message(&g, &c);
    assert!(m.contains("(1) W + K*N <= K*S"), "{m}");
    assert!(m.contains("W=10000"), "{m}");
    // format refuses it too, before touching the flash.
    let mut f = MemFlash::new(g).unwrap();
    label::write_label(&mut f, FtlKind::Async, &[]).unwrap();
    assert!(matches!(Scftl::format(f, c), Err(FtlError::BadConfig(_))));
}

#[test]
fn constraint_2_is_checked_with_numbers() {
    let (g, mut c) = tiny();
    // Raising U lowers N, so (1) still holds, but U itself is too large.
    c.gc_threshold = 7;
    c.logical_sectors = 40;
    c.write_bound = 8;
    c.gc_bound = 2;
    let m = bad_config_message(&g, &c);
    assert!(m.contains("(2) U <= P - 1 - ceil((W + K*N)/S)"), "{m}");
    assert!(m.contains("U=7"), "{m}");
}

#[test]
fn other_config_mistakes_are_named() {
    let (g, c) = tiny();
    let mut z = c.clone();
    z.gc_bound = 0;
    assert!(bad_config_message(&g, &z).contains("gc_bound"));
    let mut big = c.clone();
    big.delta_region_superblocks = 100;
    assert!(bad_config_message(&g, &big).contains("superblocks"));
    let mut l = c;
    l.logical_sectors = 0;
    assert!(bad_config_message(&g, &l).contains("logical_sectors"));
}

#[test]
fn caller_errors_change_nothing() {
    let mut d = fresh();
    let ss = d.sector_size();
    let n = d.num_sectors();
    assert!(matches!(
        d.write(Lba(n), &vec![1; ss]),
        Err(FtlError::OutOfRange { .. })
    ));
    assert!(matches!(
        d.write(Lba(n - 1), &vec![1; 2 * ss]),
        Err(FtlError::OutOfRange { .. })
    ));
    assert!(matches!(
        d.write(Lba(0), &vec![1; ss - 1]),
        Err(FtlError::BadLength { .. })
    ));
    assert!(matches!(
        d.write(Lba(0), &[]),
        Err(FtlError::BadLength { .. })
    ));
    assert!(matches!(
        d.read(Lba(u64::MAX), &mut vec![0; ss]),
        Err(FtlError::OutOfRange { .. })
    ));
    assert!(matches!(
        d.trim(Lba(u64::MAX - 1), 5),
        Err(FtlError::OutOfRange { .. })
    ));
    let w = u64::from(d.config().write_bound);
    assert_eq!(d.epoch_remaining(), Some(w));
    d.check_invariants().unwrap();
    let mut buf = vec![7u8; ss];
    d.read(Lba(0), &mut buf).unwrap();
    assert!(
        buf.iter().all(|&b| b == 0),
        "never-written sectors read as zeros"
    );
}

#[test]
fn epoch_full_refuses_the_whole_request_and_writes_nothing() {
    let mut d = fresh();
    let ss = d.sector_size();
    let w = u64::from(d.config().write_bound);
    d.write(Lba(0), &vec![1; (w as usize - 2) * ss]).unwrap();
    assert_eq!(d.epoch_remaining(), Some(2));
    let e = d.write(Lba(20), &vec![9; 3 * ss]).unwrap_err();
    assert!(
        matches!(
            e,
            FtlError::EpochFull {
                needed: 3,
                remaining: 2
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("flush"),
        "message says what to do: {e}"
    );
    let e = d.trim(Lba(0), 3).unwrap_err();
    assert!(matches!(e, FtlError::EpochFull { .. }));
    assert_eq!(d.epoch_remaining(), Some(2));
    let mut buf = vec![0u8; 3 * ss];
    d.read(Lba(20), &mut buf).unwrap();
    let expect_one = (20..23).map(|l| if l < w - 2 { 1 } else { 0 });
    for (i, e) in expect_one.enumerate() {
        assert!(buf[i * ss..(i + 1) * ss].iter().all(|&b| b == e));
    }
    d.check_invariants().unwrap();
    d.flush().unwrap();
    assert_eq!(d.epoch_remaining(), Some(w));
    d.write(Lba(20), &vec![9; 3 * ss]).unwrap();
    d.check_invariants().unwrap();
}

#[test]
fn open_refuses_unformatted_and_other_kinds() {
    let g = Geometry::tiny();
    let f = MemFlash::new(g).unwrap();
    assert!(matches!(Scftl::open(f), Err(FtlError::NotFormatted)));
    let mut f = MemFlash::new(g).unwrap();
    label::write_label(&mut f, FtlKind::Sync, &[1, 2]).unwrap();
    assert!(matches!(
        Scftl::open(f),
        Err(FtlError::WrongKind {
            found: FtlKind::Sync,
            expected: FtlKind::Scftl
        })
    ));
    let mut f = MemFlash::new(g).unwrap();
    label::write_label(&mut f, FtlKind::Scftl, &[1, 2]).unwrap();
    assert!(matches!(Scftl::open(f), Err(FtlError::Corrupt(_))));
}

#[test]
fn open_of_a_label_without_checkpoints_is_corrupt_not_a_panic() {
    let (g, c) = tiny();
    let mut f = MemFlash::new(g).unwrap();
    label::write_label(&mut f, FtlKind::Scftl, &c.encode()).unwrap();
    let e = Scftl::open(f).err().expect("must fail");
    assert!(matches!(e, FtlError::Corrupt(_)), "{e}");
}

#[test]
fn drop_without_flush_returns_exactly_the_last_flush() {
    let mut d = fresh();
    let ss = d.sector_size();
    let n = d.num_sectors();
    d.write(Lba(0), &vec![1; 4 * ss]).unwrap();
    d.write(Lba(10), &vec![2; ss]).unwrap();
    d.flush().unwrap();
    d.write(Lba(0), &vec![3; ss]).unwrap();
    d.trim(Lba(10), 1).unwrap();
    d.write(Lba(n - 1), &vec![4; ss]).unwrap();
    let mut buf = vec![0u8; ss];
    d.read(Lba(10), &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0), "trimmed sector reads zeros");
    d.read(Lba(0), &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 3), "merge buffer is read first");
    let mut d = Scftl::open(d.into_flash()).unwrap();
    d.check_invariants().unwrap();
    let mut all = vec![0u8; n as usize * ss];
    d.read(Lba(0), &mut all).unwrap();
    for lba in 0..n as usize {
        let want = match lba {
            0..=3 => 1,
            10 => 2,
            _ => 0,
        };
        assert!(
            all[lba * ss..(lba + 1) * ss].iter().all(|&b| b == want),
            "sector {lba} after reopen"
        );
    }
}

#[test]
fn metadata_blocks_cover_label_slots_and_delta_region() {
    let (g, c) = tiny();
    let m = Scftl::<MemFlash>::metadata_blocks(&g, &c);
    assert!(m.contains(&flash::BlockId(0)));
    // label superblock + 2 slots + delta region, one erase block per die.
    let sbs = 1 + 2 * c.checkpoint_slot_superblocks + c.delta_region_superblocks;
    assert_eq!(m.len() as u32, sbs * g.dies());
    // Data blocks are not metadata.
    assert!(!m.contains(&g.block_on_die(0, g.blocks_per_die - 1)));
}

#[test]
fn full_checkpoints_happen_on_tiny_and_survive_reopen() {
    let mut d = fresh();
    let ss = d.sector_size();
    // One sector per flush commits in-page (docs/FORMAT.md §4.8), which
    // fills the delta region far more slowly than a delta page per flush:
    // every third round writes a whole page, which commits in the region.
    for round in 0..60u8 {
        let sectors = if round.is_multiple_of(3) { 2 } else { 1 };
        let lba = u64::from(round % 8) & !1;
        let lba = if sectors == 2 {
            lba
        } else {
            u64::from(round % 8)
        };
        d.write(Lba(lba), &vec![round; ss * sectors]).unwrap();
        d.flush().unwrap();
        d.check_invariants().unwrap();
    }
    assert!(d.stats().full_checkpoints >= 2, "{:?}", d.stats());
    let flash: MemFlash = d.into_flash();
    let mut d = Scftl::open(flash).unwrap();
    let mut buf = vec![0u8; ss];
    for l in 0..8u8 {
        d.read(Lba(u64::from(l)), &mut buf).unwrap();
        let covers = |r: u8| r % 8 == l || (r.is_multiple_of(3) && (r % 8) & !1 == l & !1);
        let last = (0..60u8).filter(|&r| covers(r)).max().unwrap();
        assert!(buf.iter().all(|&b| b == last));
    }
    d.check_invariants().unwrap();
}

#[test]
fn format_writes_the_label_last_and_open_reads_the_config() {
    let (g, c) = tiny();
    let d = Scftl::format(MemFlash::new(g).unwrap(), c.clone()).unwrap();
    let mut f = d.into_flash();
    let (kind, bytes) = label::read_label(&mut f).unwrap();
    assert_eq!(kind, FtlKind::Scftl);
    assert_eq!(ScftlConfig::decode(&bytes).unwrap(), c);
    assert_eq!(f.geometry(), &g);
    let d = Scftl::open(f).unwrap();
    assert_eq!(d.config(), &c);
}
