//! Error paths of both baselines: every caller mistake is an error value
//! that changes nothing; unformatted and foreign devices are refused.

use crate::baseline_common as common;

use common::{pattern, Dev};
use flash::{Flash, Geometry, MemFlash};
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::sync_ftl::{SyncConfig, SyncFtl};
use ftl::{BlockDevice, FtlError, FtlKind, Lba, Mutant};

#[test]
fn out_of_range_and_bad_lengths_are_refused_and_change_nothing() {
    for kind in [FtlKind::Async, FtlKind::Sync] {
        let mut d = Dev::format(kind, Geometry::tiny());
        let n = d.dev().num_sectors();
        let ss = d.dev().sector_size();
        let mut s = vec![0u8; ss];
        pattern(n - 1, 1, &mut s);
        d.dev().write(Lba(n - 1), &s).unwrap();
        let two = vec![7u8; 2 * ss];
        let e = d.dev().write(Lba(n - 1), &two).unwrap_err();
        assert!(
            matches!(e, FtlError::OutOfRange { lba, end, num_sectors } if lba == n - 1 && end == n + 1 && num_sectors == n),
            "{e}"
        );
        assert!(matches!(
            d.dev().write(Lba(u64::MAX), &s),
            Err(FtlError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.dev().read(Lba(n), &mut s.clone()),
            Err(FtlError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.dev().trim(Lba(n - 1), 2),
            Err(FtlError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.dev().trim(Lba(1), u64::MAX),
            Err(FtlError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.dev().write(Lba(0), &[]),
            Err(FtlError::BadLength { len: 0, .. })
        ));
        assert!(matches!(
            d.dev().write(Lba(0), &vec![1u8; ss + 1]),
            Err(FtlError::BadLength { .. })
        ));
        assert!(matches!(
            d.dev().read(Lba(0), &mut vec![0u8; ss - 1]),
            Err(FtlError::BadLength { .. })
        ));
        d.dev().trim(Lba(0), 0).unwrap();
        assert_eq!(d.dev().epoch_remaining(), None);
        let mut got = vec![0u8; ss];
        d.dev().read(Lba(n - 1), &mut got).unwrap();
        assert_eq!(got, s, "{kind}: a refused request changed the last sector");
        d.dev().read(Lba(0), &mut got).unwrap();
        assert!(
            got.iter().all(|&b| b == 0),
            "{kind}: never-written sector is not zeros"
        );
        d.dev().check_invariants().unwrap();
    }
}

#[test]
fn unformatted_and_wrong_kind_devices_are_refused() {
    let g = Geometry::tiny();
    let f = MemFlash::new(g).unwrap();
    assert!(matches!(AsyncFtl::open(f), Err(FtlError::NotFormatted)));
    let f = MemFlash::new(g).unwrap();
    assert!(matches!(SyncFtl::open(f), Err(FtlError::NotFormatted)));
    let a = AsyncFtl::format(MemFlash::new(g).unwrap(), AsyncConfig::default_for(&g)).unwrap();
    let e = SyncFtl::open(a.into_flash()).err().unwrap();
    assert!(
        matches!(
            e,
            FtlError::WrongKind {
                found: FtlKind::Async,
                expected: FtlKind::Sync
            }
        ),
        "{e}"
    );
    let s = SyncFtl::format(MemFlash::new(g).unwrap(), SyncConfig::default_for(&g)).unwrap();
    let e = AsyncFtl::open(s.into_flash()).err().unwrap();
    assert!(
        matches!(
            e,
            FtlError::WrongKind {
                found: FtlKind::Sync,
                expected: FtlKind::Async
            }
        ),
        "{e}"
    );
}

#[test]
fn bad_configs_mutants_and_small_nvram_are_refused() {
    let g = Geometry::tiny();
    let mut c = AsyncConfig::default_for(&g);
    c.logical_sectors = 0;
    assert!(matches!(
        AsyncFtl::format(MemFlash::new(g).unwrap(), c.clone()),
        Err(FtlError::BadConfig(_))
    ));
    c.logical_sectors = u64::MAX;
    assert!(matches!(
        SyncFtl::format(MemFlash::new(g).unwrap(), c),
        Err(FtlError::BadConfig(_))
    ));
    let c = AsyncConfig::default_for(&g);
    let e =
        AsyncFtl::format_with_mutant(MemFlash::new(g).unwrap(), c.clone(), Mutant::SyncSkipSync)
            .err()
            .unwrap();
    assert!(matches!(e, FtlError::BadArgument(_)), "{e}");
    let e = SyncFtl::format_with_mutant(MemFlash::new(g).unwrap(), c.clone(), Mutant::SkipCrcCheck)
        .err()
        .unwrap();
    assert!(matches!(e, FtlError::BadArgument(_)), "{e}");
    let small_nv = MemFlash::with_nvram(g, 600).unwrap();
    let e = SyncFtl::format(small_nv, c.clone()).err().unwrap();
    assert!(
        matches!(e, FtlError::BadConfig(ref m) if m.contains("battery-backed")),
        "{e}"
    );
    // A sync device whose battery-backed buffer was wiped is reported, not
    // silently treated as empty.
    let s = SyncFtl::format(MemFlash::new(g).unwrap(), c).unwrap();
    let mut f = s.into_flash();
    let n = f.nvram_size();
    f.nvram_write(0, &vec![0u8; n]).unwrap();
    assert!(matches!(SyncFtl::open(f), Err(FtlError::Corrupt(_))));
}

#[test]
fn config_accessor_and_label_round_trip() {
    let g = Geometry::small();
    let mut c = AsyncConfig::default_for(&g);
    c.logical_sectors -= 100;
    let a = AsyncFtl::format(MemFlash::new(g).unwrap(), c.clone()).unwrap();
    assert_eq!(a.config(), &c);
    let a = AsyncFtl::open(a.into_flash()).unwrap();
    assert_eq!(a.config(), &c);
    assert_eq!(a.num_sectors(), c.logical_sectors);
}
