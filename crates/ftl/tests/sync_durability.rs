//! Sync: every completed write and trim survives dropping the FTL without a
//! flush (the merge buffer is replayed from the battery-backed buffer), and
//! the SyncSkipSync mutant, which keeps it in RAM, does lose it.

use crate::baseline_common as common;

use common::pattern;
use flash::{Flash, Geometry, MemFlash};
use ftl::sync_ftl::{SyncConfig, SyncFtl};
use ftl::{BlockDevice, Lba, Mutant};

fn write_one(d: &mut SyncFtl<MemFlash>, la: u64, ver: u32) -> Vec<u8> {
    let mut s = vec![0u8; d.sector_size()];
    pattern(la, ver, &mut s);
    d.write(Lba(la), &s).unwrap();
    s
}

#[test]
fn sync_write_without_flush_survives_reopen() {
    for g in [Geometry::tiny(), Geometry::small()] {
        let mut d =
            SyncFtl::format(MemFlash::new(g).unwrap(), SyncConfig::default_for(&g)).unwrap();
        let want = write_one(&mut d, 3, 1);
        let syncs_before = d.into_flash();
        let mut d = SyncFtl::open(syncs_before).unwrap();
        d.check_invariants().unwrap();
        let mut got = vec![0u8; want.len()];
        d.read(Lba(3), &mut got).unwrap();
        assert_eq!(got, want, "a completed sync write was lost");
        // A trim of a buffered and a programmed sector is durable too.
        let n = u64::from(g.sectors_per_page) * 2;
        for la in 10..10 + n {
            write_one(&mut d, la, 2);
        }
        d.trim(Lba(10), n).unwrap();
        let mut d = SyncFtl::open(d.into_flash()).unwrap();
        d.check_invariants().unwrap();
        for la in 10..10 + n {
            d.read(Lba(la), &mut got).unwrap();
            assert!(got.iter().all(|&b| b == 0), "trimmed sector {la} came back");
        }
        d.read(Lba(3), &mut got).unwrap();
        assert_eq!(got, want);
    }
}

#[test]
fn sync_programs_are_synced_before_returning() {
    let g = Geometry::tiny();
    let mut d = SyncFtl::format(MemFlash::new(g).unwrap(), SyncConfig::default_for(&g)).unwrap();
    for la in 0..u64::from(g.sectors_per_page) * 3 {
        write_one(&mut d, la, 1);
    }
    let c = d.into_flash().counters();
    assert!(
        c.programs >= 3 && c.syncs >= c.programs,
        "{c:?}: a program was not followed by a sync"
    );
}

#[test]
fn sync_skip_sync_mutant_loses_a_completed_write() {
    let g = Geometry::tiny();
    let mut d = SyncFtl::format_with_mutant(
        MemFlash::new(g).unwrap(),
        SyncConfig::default_for(&g),
        Mutant::SyncSkipSync,
    )
    .unwrap();
    write_one(&mut d, 3, 1);
    let mut d = SyncFtl::open(d.into_flash()).unwrap();
    let mut got = vec![0u8; d.sector_size()];
    d.read(Lba(3), &mut got).unwrap();
    assert!(
        got.iter().all(|&b| b == 0),
        "the mutant should have lost the buffered write"
    );
}
