//! In-page commits (docs/FORMAT.md §4.8): a flush whose only data page is
//! padded commits in that page's last sector slot instead of a delta page,
//! the commits survive a reopen, and an image of configuration version 3
//! still opens and is left at version 3 (no in-page records written).

use crate::common;

use flash::{Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{label, BlockDevice, Lba};

fn fresh() -> Scftl<MemFlash> {
    let g = Geometry::tiny();
    Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap()
}

/// Writes one sector per flush and returns the device.
fn one_sector_flushes(mut d: Scftl<MemFlash>, rounds: u8) -> Scftl<MemFlash> {
    let ss = d.sector_size();
    for round in 0..rounds {
        d.write(Lba(u64::from(round % 5)), &vec![round; ss])
            .unwrap();
        d.flush().unwrap();
        d.check_invariants().unwrap();
    }
    d
}

fn check_last_versions(d: &mut Scftl<MemFlash>, rounds: u8) {
    let mut buf = vec![0u8; d.sector_size()];
    for l in 0..5u8 {
        d.read(Lba(u64::from(l)), &mut buf).unwrap();
        let last = (0..rounds).filter(|r| r % 5 == l).max().unwrap();
        assert!(buf.iter().all(|&b| b == last), "sector {l}");
    }
}

#[test]
fn one_sector_flushes_program_no_delta_page_and_survive_reopen() {
    let d = fresh();
    let before = d.stats().meta_pages_written;
    let d = one_sector_flushes(d, 6);
    // The first flush after format commits in the region (no link yet);
    // the next five commit in their data page.
    assert_eq!(d.stats().meta_pages_written - before, 1, "{:?}", d.stats());
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check_last_versions(&mut d, 6);
    d.check_invariants().unwrap();
    // `open` consolidated the five in-page epochs into the region; a
    // second reopen must not need them from the data pages.
    let mut d = one_sector_flushes(d, 40);
    check_last_versions(&mut d, 40);
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check_last_versions(&mut d, 40);
    d.check_invariants().unwrap();
}

#[test]
fn version_3_images_open_and_stay_version_3() {
    let d = one_sector_flushes(fresh(), 1);
    let mut flash = d.into_flash();
    common::relabel_scftl_version(&mut flash, 3);
    let d = Scftl::open(flash).unwrap();
    let before = d.stats().meta_pages_written;
    let d = one_sector_flushes(d, 6);
    assert_eq!(
        d.stats().meta_pages_written - before,
        6,
        "a version-3 image commits every flush in a delta page"
    );
    let mut flash = d.into_flash();
    let (_, config) = label::read_label(&mut flash).unwrap();
    assert_eq!(config[..4], 3u32.to_le_bytes());
    let mut d = Scftl::open(flash).unwrap();
    check_last_versions(&mut d, 6);
}
